// The schema resolver a type declares: its definitions (and those they reference, such as
// ObjectMeta) by name, and which definition describes a group-version-kind. Field validation,
// strategic merge patch, server-side apply and OpenAPI v3 all read a type's schema through this,
// so a custom resource plugs its own definitions in by declaring a different TypeSchema.
import { bareDefinitionName, type DefinitionLookup, type SchemaNode } from "../apimachinery/schema.js";

export interface TypeSchema {
  /**
   * Definition by name ("#/definitions/" prefix accepted). Keep one function per schema source:
   * the apply engine caches what it derives from definitions per lookup function.
   */
  readonly definition: DefinitionLookup;
  /** Name of the definition of a group-version-kind (the type's kind, its list, subresource kinds). */
  nameOf(group: string, version: string, kind: string): string | undefined;
  /**
   * Custom resources: unknown fields are pruned by the structural schema (no typed decoding, so no
   * type mismatch at decode time); returns the removed paths ("spec.foo"). Absent: decode by definitions.
   */
  readonly prune?: (obj: unknown, apiVersion: string, kind: string) => string[];
}

/** A type without definitions: everything is accepted as sent (unknown fields are not pruned). */
export const noSchema: TypeSchema = {
  definition: () => undefined,
  nameOf: () => undefined,
};

/** The definition that describes objects of `apiVersion`/`kind` under this schema, if any. */
export function definitionOf(schema: TypeSchema, apiVersion: string, kind: string): SchemaNode | undefined {
  const name = definitionNameOf(schema, apiVersion, kind);
  return name === undefined ? undefined : schema.definition(name);
}

/** The name of the definition of objects of `apiVersion`/`kind`, if the schema has one. */
export function definitionNameOf(schema: TypeSchema, apiVersion: string, kind: string): string | undefined {
  const slash = apiVersion.indexOf("/");
  return slash < 0 ? schema.nameOf("", apiVersion, kind) : schema.nameOf(apiVersion.slice(0, slash), apiVersion.slice(slash + 1), kind);
}

/**
 * A schema of its own definitions, falling back to `base` for names it does not define (a custom
 * resource's kind over the built-in ObjectMeta, Scale, ...). `kinds` maps "group/version/kind" to
 * a definition name.
 */
export function layeredSchema(own: Readonly<Record<string, SchemaNode>>, kinds: Readonly<Record<string, string>>, base: TypeSchema): TypeSchema {
  return {
    definition: (name) => {
      const bare = bareDefinitionName(name);
      return Object.hasOwn(own, bare) ? own[bare] : base.definition(name);
    },
    nameOf: (group, version, kind) => {
      const key = `${group}/${version}/${kind}`;
      return Object.hasOwn(kinds, key) ? kinds[key] : base.nameOf(group, version, kind);
    },
  };
}
