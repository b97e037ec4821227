/** True when `root`/dist is a build of the current `root`/src (scripts/build-state.mjs). */
export function buildIsCurrent(root: string): boolean;
