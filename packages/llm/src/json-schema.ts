/** A JSON schema (the subset structured outputs use), as parsed from front matter. */
export type JsonSchema = Record<string, unknown>;

/**
 * Checks a value against the JSON-schema subset judge templates and method prompts use (object, integer,
 * number, string, boolean; required, properties, additionalProperties: false, minimum,
 * maximum, enum). Returns a description of the first problem, or undefined.
 */
export function checkSchema(value: unknown, schema: JsonSchema, path: string): string | undefined {
  const type = schema.type as string | undefined;
  if (schema.enum && !(schema.enum as unknown[]).includes(value))
    return `${path} must be one of ${JSON.stringify(schema.enum)}`;
  switch (type) {
    case 'object': {
      if (typeof value !== 'object' || value === null || Array.isArray(value))
        return `${path} must be an object`;
      const obj = value as Record<string, unknown>;
      const props = (schema.properties ?? {}) as Record<string, JsonSchema>;
      for (const key of (schema.required ?? []) as string[])
        if (!(key in obj)) return `${path}.${key} is missing`;
      for (const [key, v] of Object.entries(obj)) {
        const sub = props[key];
        if (!sub) {
          if (schema.additionalProperties === false) return `${path}.${key} is not expected`;
          continue;
        }
        const problem = checkSchema(v, sub, `${path}.${key}`);
        if (problem) return problem;
      }
      return undefined;
    }
    case 'integer':
    case 'number': {
      if (typeof value !== 'number' || !Number.isFinite(value)) return `${path} must be a number`;
      if (type === 'integer' && !Number.isInteger(value)) return `${path} must be an integer`;
      if (typeof schema.minimum === 'number' && value < schema.minimum)
        return `${path} must be >= ${schema.minimum}`;
      if (typeof schema.maximum === 'number' && value > schema.maximum)
        return `${path} must be <= ${schema.maximum}`;
      return undefined;
    }
    case 'string':
      return typeof value === 'string' ? undefined : `${path} must be a string`;
    case 'boolean':
      return typeof value === 'boolean' ? undefined : `${path} must be true or false`;
    default:
      return undefined;
  }
}
