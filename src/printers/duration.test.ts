import { describe, expect, it } from "vitest";
import { humanDuration, parseTime, shortHumanDuration, since } from "./duration.js";

const S = 1000;
const M = 60 * S;
const H = 60 * M;
const D = 24 * H;

describe("humanDuration", () => {
  it.each([
    [0, "0s"],
    [999, "0s"],
    [59 * S, "59s"],
    [60 * S, "60s"],
    [90 * S, "90s"],
    [119 * S, "119s"],
    [120 * S, "2m"],
    [150 * S, "2m30s"],
    [9 * M + 59 * S, "9m59s"],
    [10 * M, "10m"],
    [10 * M + 30 * S, "10m"],
    [179 * M, "179m"],
    [3 * H, "3h"],
    [3 * H + 2 * M, "3h2m"],
    [7 * H + 59 * M, "7h59m"],
    [8 * H, "8h"],
    [8 * H + 30 * M, "8h"],
    [47 * H, "47h"],
    [48 * H, "2d"],
    [3 * D, "3d"],
    [3 * D + 5 * H, "3d5h"],
    [7 * D + 23 * H, "7d23h"],
    [8 * D, "8d"],
    [8 * D + 5 * H, "8d"],
    [400 * D, "400d"],
    [729 * D, "729d"],
    [730 * D, "2y"],
    [731 * D, "2y1d"],
    [3 * 365 * D, "3y"],
    [3 * 365 * D + 10 * D, "3y10d"],
    [8 * 365 * D, "8y"],
    [10 * 365 * D + 100 * D, "10y"],
    [-1 * S, "0s"],
    [-1500, "0s"],
    [-2 * S, "<invalid>"],
    [-1 * H, "<invalid>"],
  ])("%d ms -> %s", (ms, want) => {
    expect(humanDuration(ms)).toBe(want);
  });
});

describe("shortHumanDuration", () => {
  it.each([
    [0, "0s"],
    [59 * S, "59s"],
    [60 * S, "1m"],
    [90 * S, "1m"],
    [59 * M, "59m"],
    [90 * M, "1h"],
    [23 * H, "23h"],
    [24 * H, "1d"],
    [47 * H, "1d"],
    [364 * D, "364d"],
    [365 * D, "1y"],
    [800 * D, "2y"],
    [-1 * S, "0s"],
    [-5 * S, "<invalid>"],
  ])("%d ms -> %s", (ms, want) => {
    expect(shortHumanDuration(ms)).toBe(want);
  });
});

describe("timestamps", () => {
  const now = new Date("2025-06-01T12:00:00Z");
  it("treats absent and Go zero times as unknown", () => {
    expect(since(undefined, now)).toBe("<unknown>");
    expect(since("", now)).toBe("<unknown>");
    expect(since(null, now)).toBe("<unknown>");
    expect(since("0001-01-01T00:00:00Z", now)).toBe("<unknown>");
    expect(parseTime("0001-01-01T00:00:00Z")).toBeUndefined();
  });
  it("measures from now, including micro-time values", () => {
    expect(since("2025-06-01T11:55:00Z", now)).toBe("5m");
    expect(since("2025-06-01T11:59:30.123456Z", now)).toBe("29s");
    expect(since("2025-06-01T12:00:10Z", now)).toBe("<invalid>");
  });
});
