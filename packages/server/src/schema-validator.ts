import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import type { JsonSchemaType, JsonSchemaValidator, jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js';

/**
 * The MCP SDK's JSON Schema validator (Ajv) for one connection's `Server`, made on its first use: the SDK makes one
 * per `Server` otherwise, and a connection (one per client) rarely validates anything (elicitation answers), while
 * making the Ajv instance costs about 1.5 ms of the event loop. Per connection still, so its compiled schemas go with it.
 */
export class LazySchemaValidator implements jsonSchemaValidator {
  #validator: jsonSchemaValidator | undefined;

  /** A validator of `schema`, from the connection's Ajv instance (made now the first time). */
  getValidator<T>(schema: JsonSchemaType): JsonSchemaValidator<T> {
    this.#validator ??= new AjvJsonSchemaValidator();
    return this.#validator.getValidator<T>(schema);
  }
}
