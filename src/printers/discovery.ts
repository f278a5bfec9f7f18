// Printers for the discovery.k8s.io API group.
import { age, ageColumn, arr, col, int, listWithMore, name, nameColumn, str } from "./helpers.js";
import type { Printer } from "./types.js";

export function formatSlicePorts(ports: unknown): string {
  const out: string[] = [];
  const max = 3;
  let more = false;
  let count = 0;
  for (const port of arr(ports)) {
    if (out.length < max) {
      if (typeof port?.port === "number") out.push(String(int(port.port)));
      else if (typeof port?.name === "string") out.push(port.name);
      else out.push("*");
    } else if (out.length === max) {
      more = true;
    }
    count++;
  }
  return listWithMore(out, more, count, max);
}

export function formatSliceEndpoints(endpoints: unknown): string {
  const out: string[] = [];
  const max = 3;
  let more = false;
  let count = 0;
  for (const ep of arr(endpoints)) {
    for (const address of arr(ep?.addresses)) {
      if (out.length < max) out.push(str(address));
      else if (out.length === max) more = true;
      count++;
    }
  }
  return listWithMore(out, more, count, max);
}

export const endpointSlicePrinter: Printer = {
  columns: [
    nameColumn(),
    col("AddressType", "string", "Address family of the endpoints."),
    col("Ports", "string", "Ports exposed by the endpoints."),
    col("Endpoints", "string", "Endpoint addresses."),
    ageColumn(),
  ],
  cells(slice, now) {
    return [
      name(slice),
      str(slice?.addressType),
      formatSlicePorts(slice?.ports),
      formatSliceEndpoints(slice?.endpoints),
      age(slice, now),
    ];
  },
};
