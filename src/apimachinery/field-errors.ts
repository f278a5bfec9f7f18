// The field errors of a 422 Invalid, as the library exports them (`field.required(...)`, ...):
// upstream's field.ErrorList constructors, for admission plugins that refuse with `invalid()`.
export { duplicate, forbidden, invalid, notFound, notSupported, required, tooLong, tooMany, typeInvalid } from "./validation.js";
