import { describe } from "vitest";
import { CelOptional } from "../value.js";
import { compileErr, table, type Case } from "./e2e.testkit.js";
import { namedFormats } from "./format.js";

const some = (...messages: string[]) => CelOptional.of(messages);
const none = CelOptional.none;

const dns1123Label =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
const dns1123Subdomain =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const dns1035Label =
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";

describe("kubernetes.format end to end", () => {
  table([
    ['format.date().validate("2021-01-01")', none],
    ['format.datetime().validate("2021-01-01T00:00:00Z")', none],
    ['format.dns1123Label().validate("contains a space")', some(dns1123Label)],
    ['format.dns1123Subdomain().validate("contains a space")', some(dns1123Subdomain)],
    ['format.dns1035Label().validate("contains a space")', some(dns1035Label)],
    [
      'format.qualifiedName().validate("contains a space")',
      some(
        "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
      ),
    ],
    ['format.dns1123LabelPrefix().validate("contains a space-")', some(dns1123Label)],
    ['format.dns1123SubdomainPrefix().validate("contains a space-")', some(dns1123Subdomain)],
    ['format.dns1035LabelPrefix().validate("contains a space-")', some(dns1035Label)],
    ['format.dns1123LabelPrefix().validate("my-prefix-")', none],
    ['format.dns1123Label().validate("my-label-name")', none],
    ['format.dns1123Subdomain().validate("example.com")', none],
    ['format.dns1035Label().validate("my-label-name")', none],
    ['format.qualifiedName().validate("my.name")', none],
    ['format.byte().validate("aGVsbG8=")', none],
    ['format.byte().validate("aGVsbG8")', some("invalid base64")],
    ['format.date().validate("2020-01-01")', none],
    ['format.date().validate("2020-01-32")', some("invalid date")],
    ['format.datetime().validate("2020-01-01T00:00:00Z")', none],
    ['format.datetime().validate("2020-01-32T00:00:00Z")', some("invalid datetime")],
    ['format.uuid().validate("123e4567-e89b-12d3-a456-426614174000")', none],
    ['format.uuid().validate("not-a-uuid")', some("does not match the UUID format")],
    ['format.uri().validate("https://example.com/path")', none],
    ['format.uri().validate("../relative")', some('parse "../relative": invalid URI for request')],
    ['format.labelValue().validate("my-cool-label-Value")', none],
    ['format.labelValue().validate("")', none],
    [
      'format.labelValue().validate("my-cool-label-Value!!\\n\\n!!!")',
      some(
        "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
      ),
    ],
    ['format.named("unknown").hasValue()', false],
    ['format.named("dns1123Label").value().validate("ok")', none],
    ["format.named(1)", compileErr("found no matching overload for 'format.named' applied to '(int)'")],
    ['format.dns1123Label().validate(1)', compileErr("found no matching overload for 'validate' applied to 'kubernetes.NamedFormat.(int)'")],
    ["format.notAFormat()", compileErr("undeclared reference to 'notAFormat' (in container '')")],
  ]);

  const pairs: Case[] = [];
  const names = [...namedFormats.keys()];
  for (const a of names) {
    pairs.push([`format.named("${a}").hasValue()`, true]);
    pairs.push([`format.named("${a}").value() == format.${a}()`, true]);
    for (const b of names) if (a !== b) pairs.push([`format.${a}() == format.${b}()`, false]);
  }
  table(pairs);
});
