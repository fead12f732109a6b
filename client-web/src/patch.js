// View patches: every delta carries an RFC 6902 JSON Patch (server/patch.py), applied with
// fast-json-patch to the last view this client holds. The first delta of a viewer
// replaces the whole document, so folding from any document (even null) works.
import { applyPatch } from "fast-json-patch";

/** The view after applying `patch` to `view` (a new object; `view` is not changed). */
export function patched(view, patch) {
  return applyPatch(view == null ? {} : view, patch, true, false).newDocument;
}

/** True when a delta follows the last seq this client has (`prev`: the seq of the delta
 *  before it for this viewer, given when events in between were not for this viewer). */
export function follows(msg, seq) {
  return msg.prev === undefined ? msg.seq === seq + 1 : msg.prev <= seq && msg.seq > seq;
}
