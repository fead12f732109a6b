// View patches: every delta carries an RFC 6902 JSON Patch (server/table/patch.py), applied with
// fast-json-patch to the last view this client holds. The first delta of a viewer
// replaces the whole document, so folding from any document (even null) works.
import { applyPatch } from "fast-json-patch";

/** The view after applying `patch` to `view` (a new object; `view` is not changed). */
export function patched(view, patch) {
  return applyPatch(view == null ? {} : view, patch, true, false).newDocument;
}

/** True when a `deltas` frame follows the last seq this client has: its `prev` (the seq
 *  of this viewer's previous frame, whose view the patch applies to) is that seq. */
export function follows(msg, seq) {
  return msg.prev === seq;
}
