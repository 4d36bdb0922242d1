import { AgentSpacesError } from '@agent-spaces/capabilities';
import type { SpaceDefinition } from '../config.js';
import type { Connection } from '../connection.js';
import type { RequestId } from '@modelcontextprotocol/sdk/types.js';
import { configuredModel, type AgentModel } from '@agent-spaces/sdk';
import { clientSamples, samplingModel } from './sampling.js';

/** True when agent runs of this client can have a model: it declared sampling, or the server or a space has a `model`. */
export function modelAvailable(connection: Connection): boolean {
  return clientSamples(connection.server) || connection.state.model !== undefined || connection.state.spaces.some((s) => s.model !== undefined);
}

/**
 * The model of an agent run in `definition` for this client: the client's own through MCP sampling when it declared
 * `sampling` (asked on the stream of the tool call `requestId`), else the space's `model`, else the server's, else
 * `MODEL_UNAVAILABLE` naming both ways to get one.
 */
export function chooseModel(connection: Connection, definition: SpaceDefinition, requestId?: RequestId): AgentModel {
  if (clientSamples(connection.server)) return samplingModel(connection.server, requestId);
  const settings = definition.model ?? connection.state.model;
  if (settings) return configuredModel(settings);
  throw new AgentSpacesError(
    'MODEL_UNAVAILABLE',
    `No model for an agent run in space "${definition.id}": connect with an MCP client that declares the sampling capability, ` +
      'or configure a model (the config\'s top-level "model" or the space\'s "model": { provider, model, baseURL?, apiKey })',
    { spaceId: definition.id },
  );
}
