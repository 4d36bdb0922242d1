/** A running trace export: `close()` flushes the spans still buffered and stops it. */
export interface TraceExport {
  /** Where spans go. */
  endpoint: string;
  close(): Promise<void>;
}

/** The optional packages that export spans over OTLP; `mcp serve` loads them only when an endpoint is configured. */
const TRACE_EXPORT_PACKAGES = ['@opentelemetry/sdk-trace-base', '@opentelemetry/exporter-trace-otlp-http', '@opentelemetry/resources'];

/**
 * Starts exporting the run and call spans (docs/sdk-and-cli.md, "Traces") over OTLP/HTTP when the standard
 * variables name an endpoint (`OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` or `OTEL_EXPORTER_OTLP_ENDPOINT`; headers from
 * `OTEL_EXPORTER_OTLP_HEADERS`, service name from `OTEL_SERVICE_NAME`, default `agent-spaces`). Returns undefined
 * when none is set, `OTEL_SDK_DISABLED=true` or `OTEL_TRACES_EXPORTER=none`; throws, saying what to install, when
 * the optional packages are not installed.
 */
export async function startTraceExport(env: NodeJS.ProcessEnv = process.env): Promise<TraceExport | undefined> {
  const endpoint = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || env.OTEL_EXPORTER_OTLP_ENDPOINT;
  if (!endpoint || env.OTEL_SDK_DISABLED === 'true' || env.OTEL_TRACES_EXPORTER === 'none') return undefined;
  const [{ trace }, { BasicTracerProvider, BatchSpanProcessor }, { OTLPTraceExporter }, { resourceFromAttributes }] = await Promise.all([
    import('@opentelemetry/api'),
    import('@opentelemetry/sdk-trace-base'),
    import('@opentelemetry/exporter-trace-otlp-http'),
    import('@opentelemetry/resources'),
  ]).catch((error: unknown) => {
    throw new Error(`${endpoint} is set but the exporter is not installed: npm install ${TRACE_EXPORT_PACKAGES.join(' ')} (${(error as Error).message})`);
  });
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': env.OTEL_SERVICE_NAME || 'agent-spaces' }),
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter())],
  });
  trace.setGlobalTracerProvider(provider);
  return {
    endpoint,
    async close() {
      await provider.shutdown();
      trace.disable();
    },
  };
}
