/** The shape of `agent-spaces.config.ts|mjs|json`. Later features add keys; unknown keys are an error. */
export interface AgentSpacesConfig {
  /** Capability source files or globs, relative to the config file (`capabilities/*.ts`, `tools/weather.json`). */
  capabilities?: string[];
  /** Build output folder, relative to the config file. Default `.agent-spaces`. */
  outDir?: string;
}

/** Identity helper that types an `agent-spaces.config.ts` default export. */
export function defineConfig(config: AgentSpacesConfig): AgentSpacesConfig {
  return config;
}
