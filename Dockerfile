# Dockerfile — `agent-spaces mcp serve` over HTTP on a project mounted at /app/project (docs/deployment.md, "Docker").
#   docker build -t agent-spaces .
#   docker run --rm -p 8080:8080 -v "$PWD/my-project:/app/project" -e AGENT_SPACES_MCP_TOKEN=… agent-spaces
# Not built here: the machine this was written on has no Docker engine (test/docker.test.ts checks what it can).

# 1. Build the workspace and pack the tarballs a user installs (scripts/pack.mjs). The full Debian image has the C++
#    toolchain, python3 and make that isolated-vm's install script needs.
FROM node:20-bookworm AS build
WORKDIR /src
COPY . .
RUN npm ci --no-audit --no-fund && npm run pack

# 2. Install the tarballs as the README says, the two install scripts approved (isolated-vm compiles here), without
#    the optional model libraries: add `ai @ai-sdk/openai-compatible` to the install for `ask` and headless agents.
FROM node:20-bookworm AS install
WORKDIR /app
COPY --from=build /src/packs/ /tmp/packs/
RUN npm init -y >/dev/null \
 && npm pkg set 'allowScripts.isolated-vm=true' 'allowScripts.esbuild=true' --json \
 && npm install --no-audit --no-fund /tmp/packs/*.tgz \
 && rm -rf /tmp/packs

# 3. Run on the slim image of the same Debian (the compiled isolated-vm links against its glibc), as the `node` user.
FROM node:20-bookworm-slim
ENV NODE_ENV=production PATH=/app/node_modules/.bin:$PATH
COPY --from=install /app /app
# The project is mounted here; packages it imports resolve from /app/node_modules, one folder up.
RUN mkdir /app/project && chown node:node /app/project
WORKDIR /app/project
USER node
EXPOSE 8080
# GET /health needs no token and no allowed Host (packages/server/src/http.ts); the slim image has no curl.
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:8080/health').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# Build the mounted project, then serve it; exec so SIGTERM reaches the server (its sandbox processes start with
# the --no-node-snapshot isolated-vm needs by themselves).
CMD ["sh", "-c", "agent-spaces capabilities build && exec agent-spaces mcp serve --port 8080 --host 0.0.0.0"]
