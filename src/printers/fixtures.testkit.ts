// Shared fixtures for printer tests.
export const now = new Date("2025-06-01T12:00:00Z");

/** RFC 3339 timestamp `ms` milliseconds before `now`. */
export function ago(ms: number): string {
  return new Date(now.getTime() - ms).toISOString().replace(/\.000Z$/, "Z");
}

export const SEC = 1000;
export const MIN = 60 * SEC;
export const HOUR = 60 * MIN;
export const DAY = 24 * HOUR;

export function meta(name: string, created: string = ago(3 * HOUR + 2 * MIN), extra: Record<string, unknown> = {}) {
  return { name, namespace: "default", creationTimestamp: created, ...extra };
}
