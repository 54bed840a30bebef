/** Frame budget: 15 fps is plenty for a status console and keeps SSH traffic low (docs/architecture.md#render-and-update-budget). */
export const MAX_FPS = 15;

/** The shortest time between two frames Ink's throttle lets through (as Ink rounds it). */
export const FRAME_MS = Math.ceil(1000 / MAX_FPS);
