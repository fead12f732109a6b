// Small inline SVG icons (no icon font, so they render on every machine).

// An icon without a label is decoration (the logo beside the site's name, the eye beside
// "Pirate table"): hidden from assistive technology, not an image without a name.
const svg = (body, label) => (label
  ? `<svg class="icon" viewBox="0 0 24 24" role="img" aria-label="${label}" focusable="false">${body}</svg>`
  : `<svg class="icon" viewBox="0 0 24 24" aria-hidden="true" focusable="false">${body}</svg>`);

export const icons = {
  sabre: (label = "sabre") => svg(
    '<path d="M7 15.5C11 9 15 5.5 21.5 2.5 19 8.5 15 13 9 17.5z" fill="#e5e7eb" stroke="currentColor" stroke-width="1.5" stroke-linejoin="round"/><path d="M4 13.5l6.5 6.5" stroke="#c8861d" stroke-width="3" stroke-linecap="round"/><path d="M7 17L3 21" stroke="#6b3f16" stroke-width="3.2" stroke-linecap="round"/><circle cx="2.8" cy="21.2" r="1.6" fill="#c8861d"/>', label),
  ducat: (label = "ducat") => svg(
    '<circle cx="12" cy="12" r="9" fill="#e7b62c" stroke="#8a6512" stroke-width="1.6"/><circle cx="12" cy="12" r="5.5" fill="none" stroke="#8a6512" stroke-width="1.2"/>', label),
  jewel: (label = "jewel") => svg(
    '<path d="M6 4h12l4 5-10 12L2 9z" fill="#2bb3a3" stroke="#13675e" stroke-width="1.4" stroke-linejoin="round"/><path d="M2 9h20M9 4l3 17 3-17" fill="none" stroke="#13675e" stroke-width="1"/>', label),
  chest: (label = "treasure chest") => svg(
    '<rect x="3" y="9" width="18" height="11" rx="1.5" fill="#a0652d" stroke="#5b3512" stroke-width="1.4"/><path d="M3 9c0-4 3-5 9-5s9 1 9 5" fill="#c17f3e" stroke="#5b3512" stroke-width="1.4"/><rect x="10.5" y="10" width="3" height="4" fill="#e7b62c" stroke="#5b3512"/>', label),
  ship: (label = "ship") => svg(
    '<path d="M12 3v12M12 4l6 9h-6M12 6l-5 7h5" fill="#f4efe1" stroke="currentColor" stroke-width="1.4" stroke-linejoin="round"/><path d="M3 16h18l-3 4H6z" fill="#6b4424" stroke="currentColor" stroke-width="1.4" stroke-linejoin="round"/>', label),
  eye: (label = "") => svg(
    '<path d="M2 12s4-7 10-7 10 7 10 7-4 7-10 7S2 12 2 12z" fill="#fff" stroke="currentColor" stroke-width="1.6"/><circle cx="12" cy="12" r="3.5" fill="currentColor"/>', label),
  patch: (label = "") => svg(
    '<path d="M3 5l18 10" stroke="currentColor" stroke-width="1.6"/><ellipse cx="12" cy="11" rx="5.5" ry="4.5" fill="currentColor"/>', label),
};

/** A glyph per color, so colors are told apart without seeing hue (color-blind safe). */
export const COLOR_GLYPH = {
  blue: "≈", green: "♣", red: "♥", yellow: "☀", purple: "♛", orange: "▲", brown: "■", gray: "✚",
};
