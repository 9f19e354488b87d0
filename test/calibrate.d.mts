/** Milliseconds test/calibrate.mjs's fixed CPU loop takes, or `share` of it (0.25: a quarter). */
export function calibrationMs(share?: number): number;
