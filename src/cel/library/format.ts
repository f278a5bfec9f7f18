// The Kubernetes format library (k8s.io/apiserver/pkg/cel/library, format; on since 1.31):
// format.named(name) → optional format, one zero-argument function per named format
// (`format.dns1123Label()`, …; declared as functions whose names contain the dot, which is how
// cel-go resolves qualified function names), and <format>.validate(string) → optional list of
// upstream's validation messages (none when valid).
import { memberOverload, overload, type ArgEstimate, type CallEstimate, type CelLibrary, type FunctionDecl } from "../library.js";
import { listOf, opaque, optionalOf, StringType } from "../types.js";
import { CelOptional, type CelOpaque, type CelValue } from "../value.js";
// upstream's NameIsDNSLabel/NameIsDNSSubdomain/NameIsDNS1035Label (with generateName masking),
// IsQualifiedName and IsValidLabelValue, messages identical
import { isQualifiedName, isValidLabelValue, validateName } from "../../apimachinery/validation.js";
import { regexStringLengthCostFactor, stringTraversalCostFactor } from "../cost/constants.js";
import { actualSize, MAX_ESTIMATE, multiplyByCostFactor, nominalCost } from "./k8s-common.js";
import { parseRequestURIError } from "./url.js";

export const FormatType = opaque("kubernetes.NamedFormat");

/** cel.MaxNameFormatRegexSize: the regex size upstream's estimator assumes for validate(). */
const MAX_NAME_FORMAT_REGEX_SIZE = 128;

// Regex texts whose lengths upstream uses as MaxRegexSize (cost only).
const GOVALIDATOR_IP =
  "(([0-9a-fA-F]{1,4}:){7,7}[0-9a-fA-F]{1,4}|([0-9a-fA-F]{1,4}:){1,7}:|([0-9a-fA-F]{1,4}:){1,6}:[0-9a-fA-F]{1,4}|([0-9a-fA-F]{1,4}:){1,5}(:[0-9a-fA-F]{1,4}){1,2}|([0-9a-fA-F]{1,4}:){1,4}(:[0-9a-fA-F]{1,4}){1,3}|([0-9a-fA-F]{1,4}:){1,3}(:[0-9a-fA-F]{1,4}){1,4}|([0-9a-fA-F]{1,4}:){1,2}(:[0-9a-fA-F]{1,4}){1,5}|[0-9a-fA-F]{1,4}:((:[0-9a-fA-F]{1,4}){1,6})|:((:[0-9a-fA-F]{1,4}){1,7}|:)|fe80:(:[0-9a-fA-F]{0,4}){0,4}%[0-9a-zA-Z]{1,}|::(ffff(:0{1,4}){0,1}:){0,1}((25[0-5]|(2[0-4]|1{0,1}[0-9]){0,1}[0-9])\\.){3,3}(25[0-5]|(2[0-4]|1{0,1}[0-9]){0,1}[0-9])|([0-9a-fA-F]{1,4}:){1,4}:((25[0-5]|(2[0-4]|1{0,1}[0-9]){0,1}[0-9])\\.){3,3}(25[0-5]|(2[0-4]|1{0,1}[0-9]){0,1}[0-9]))";
const GOVALIDATOR_URL =
  "^" +
  "((ftp|tcp|udp|wss?|https?):\\/\\/)" +
  "?" +
  "(\\S+(:\\S*)?@)" +
  "?" +
  "((" +
  "([1-9]\\d?|1\\d\\d|2[01]\\d|22[0-3]|24\\d|25[0-5])(\\.(\\d{1,2}|1\\d\\d|2[0-4]\\d|25[0-5])){2}(?:\\.([0-9]\\d?|1\\d\\d|2[0-4]\\d|25[0-5]))" +
  "|(\\[" +
  GOVALIDATOR_IP +
  "\\])|(([a-zA-Z0-9]([a-zA-Z0-9-_]+)?[a-zA-Z0-9]([-\\.][a-zA-Z0-9]+)*)|(" +
  "((www\\.)|([a-zA-Z0-9]+([-_\\.]?[a-zA-Z0-9])*[a-zA-Z0-9]\\.[a-zA-Z0-9]+))" +
  "?))?(([a-zA-Z\\x{00a1}-\\x{ffff}0-9]+-?-?)*[a-zA-Z\\x{00a1}-\\x{ffff}0-9]+)(?:\\.([a-zA-Z\\x{00a1}-\\x{ffff}]{1,}))?))\\.?" +
  "(:(\\d{1,5}))" +
  "?" +
  "((\\/|\\?|#)[^\\s]*)" +
  "?$";
const GOVALIDATOR_BASE64 = "^(?:[A-Za-z0-9+\\/]{4})*(?:[A-Za-z0-9+\\/]{2}==|[A-Za-z0-9+\\/]{3}=|[A-Za-z0-9+\\/]{4})$";
const STRFMT_UUID_PATTERN = "(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$";
const STRFMT_DATETIME_PATTERN = "^([0-9]{2}):([0-9]{2}):([0-9]{2})(.[0-9]+)?(z|([+-][0-9]{2}:[0-9]{2}))$";

const base64Re = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=|[A-Za-z0-9+/]{4})$/;
const uuidRe = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;
const dateRe = /^([0-9]{4})-([0-9]{2})-([0-9]{2})$/;
const timeRe = /^([0-9]{2}):([0-9]{2}):([0-9]{2})(.[0-9]+)?(z|([+-][0-9]{2}:[0-9]{2}))$/;

/** Go's time.Parse("2006-01-02", s) succeeds. */
function isDate(s: string): boolean {
  const m = dateRe.exec(s);
  if (!m) return false;
  const year = Number(m[1]);
  const month = Number(m[2]);
  const day = Number(m[3]);
  if (month < 1 || month > 12) return false;
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  const days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]!;
  return day >= 1 && day <= days;
}

/** kube-openapi strfmt.IsDateTime. */
function isDateTime(s: string): boolean {
  if (new TextEncoder().encode(s).length < 4) return false;
  const parts = s.toLowerCase().split("t");
  if (parts.length < 2 || !isDate(parts[0]!)) return false;
  const m = timeRe.exec(parts[1]!);
  if (!m) return false;
  return m[1]! <= "23" && m[2]! <= "59" && m[3]! <= "59";
}

/** A kubernetes.NamedFormat value: compared by name. */
export class NamedFormat implements CelOpaque {
  readonly celType = FormatType;
  constructor(
    readonly name: string,
    readonly validate: (s: string) => readonly string[],
    readonly maxRegexSize: number,
  ) {}
  equals(other: CelOpaque): boolean {
    return other instanceof NamedFormat && this.name === other.name;
  }
}

const check = (ok: (s: string) => boolean, message: string) => (s: string) => (ok(s) ? [] : [message]);

/** Upstream's ConstantFormats, keyed by the name `format.named` and `format.<name>()` use. */
export const namedFormats: ReadonlyMap<string, NamedFormat> = new Map([
  ["dns1123Label", new NamedFormat("DNS1123Label", (s) => validateName(s, false, "label"), 30)],
  ["dns1123Subdomain", new NamedFormat("DNS1123Subdomain", (s) => validateName(s, false, "subdomain"), 60)],
  ["dns1035Label", new NamedFormat("DNS1035Label", (s) => validateName(s, false, "dns1035"), 30)],
  ["qualifiedName", new NamedFormat("QualifiedName", isQualifiedName, 60)],
  ["dns1123LabelPrefix", new NamedFormat("DNS1123LabelPrefix", (s) => validateName(s, true, "label"), 30)],
  ["dns1123SubdomainPrefix", new NamedFormat("DNS1123SubdomainPrefix", (s) => validateName(s, true, "subdomain"), 60)],
  ["dns1035LabelPrefix", new NamedFormat("DNS1035LabelPrefix", (s) => validateName(s, true, "dns1035"), 30)],
  ["labelValue", new NamedFormat("LabelValue", isValidLabelValue, 40)],
  [
    "uri",
    new NamedFormat(
      "URI",
      (s) => {
        const err = parseRequestURIError(s);
        return err === undefined ? [] : [err];
      },
      GOVALIDATOR_URL.length,
    ),
  ],
  ["uuid", new NamedFormat("uuid", check((s) => uuidRe.test(s), "does not match the UUID format"), STRFMT_UUID_PATTERN.length)],
  ["byte", new NamedFormat("byte", check((s) => base64Re.test(s), "invalid base64"), GOVALIDATOR_BASE64.length)],
  ["date", new NamedFormat("date", check(isDate, "invalid date"), STRFMT_DATETIME_PATTERN.length)],
  ["datetime", new NamedFormat("datetime", check(isDateTime, "invalid datetime"), STRFMT_DATETIME_PATTERN.length)],
]);

const validateCost = {
  estimate: (args: readonly ArgEstimate[]): CallEstimate => {
    const size = args[1]?.size ?? { min: 0, max: MAX_ESTIMATE };
    return {
      cost: multiplyByCostFactor(multiplyByCostFactor(size, stringTraversalCostFactor), MAX_NAME_FORMAT_REGEX_SIZE * regexStringLengthCostFactor),
    };
  },
  actual: (args: readonly CelValue[]): number => {
    const f = args[0] as unknown as NamedFormat;
    const strCost = Math.ceil((1 + actualSize(args[1]!)) * stringTraversalCostFactor);
    const regexCost = Math.ceil(f.maxRegexSize * regexStringLengthCostFactor);
    return strCost * regexCost;
  },
};

const constantFunctions: FunctionDecl[] = [...namedFormats].map(([key, f]) => ({
  name: `format.${key}`,
  // cel-go's default cost (upstream's estimator has no entry for these)
  overloads: [overload(`format.${key}`, [], FormatType, () => f)],
}));

export const formatLibrary: CelLibrary = {
  name: "format",
  functions: [
    {
      name: "validate",
      overloads: [
        memberOverload(
          "format-validate",
          [FormatType, StringType],
          optionalOf(listOf(StringType)),
          ([f, s]) => {
            const errs = (f as unknown as NamedFormat).validate(s as string);
            return errs.length === 0 ? CelOptional.none : CelOptional.of([...errs]);
          },
          { cost: validateCost },
        ),
      ],
    },
    {
      name: "format.named",
      overloads: [
        overload(
          "format-named",
          [StringType],
          optionalOf(FormatType),
          ([name]) => {
            const f = namedFormats.get(name as string);
            return f ? CelOptional.of(f) : CelOptional.none;
          },
          { cost: nominalCost },
        ),
      ],
    },
    ...constantFunctions,
  ],
};
