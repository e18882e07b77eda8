/** A JSON schema (the subset structured outputs use), as parsed from front matter. */
export type JsonSchema = Record<string, unknown>;

/**
 * Checks a value against the JSON-schema subset judge templates and method prompts use (object,
 * array, integer, number, string, boolean; required, properties, additionalProperties: false,
 * items, minItems, maxItems, minimum, maximum, enum). Returns a description of the first
 * problem, or undefined.
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
    case 'array': {
      if (!Array.isArray(value)) return `${path} must be a list`;
      if (typeof schema.minItems === 'number' && value.length < schema.minItems)
        return `${path} must have at least ${schema.minItems} items`;
      if (typeof schema.maxItems === 'number' && value.length > schema.maxItems)
        return `${path} must have at most ${schema.maxItems} items`;
      const items = schema.items as JsonSchema | undefined;
      if (items)
        for (let i = 0; i < value.length; i++) {
          const problem = checkSchema(value[i], items, `${path}[${i}]`);
          if (problem) return problem;
        }
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
