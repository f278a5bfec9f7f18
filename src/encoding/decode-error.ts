/** A request body that cannot be decoded; the HTTP layer answers 400 BadRequest. */
export class DecodeError extends Error {}
