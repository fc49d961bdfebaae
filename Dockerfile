# The durable-react-agent worker: `durable-react-agent worker` against TEMPORAL_ADDRESS. docker-compose.yml builds it
# and runs it next to Temporal; on its own: docker build -t durable-react-agent-worker . && docker run --init \
#   -e TEMPORAL_ADDRESS=temporal.example:7233 -e OPENAI_API_KEY durable-react-agent-worker

ARG NODE_IMAGE=node:20-bookworm-slim

# npm 11 for every install: the node:20 images ship npm 10, which ignores package.json's `allowScripts` and would run
# the install scripts the project denies on purpose (@swc/core, protobufjs, esbuild).
FROM ${NODE_IMAGE} AS npm11
RUN npm install --global --no-audit --no-fund npm@11.19.1
WORKDIR /app
COPY package.json package-lock.json ./

# Build: every dependency, then `tsc -p tsconfig.build.json` into dist/ and the workflow bundle dist/workflow-bundle.js.
FROM npm11 AS build
RUN npm install --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY scripts/bundle-workflows.mjs ./scripts/
COPY src ./src
RUN npm run build

# Production dependencies only (a worker with tracing on bundles its workflows at start, with webpack from these).
FROM npm11 AS prod-deps
RUN npm install --omit=dev --no-audit --no-fund

FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production \
    WORKER_HEALTH_ADDRESS=0.0.0.0:8080 \
    WORKER_METRICS_ADDRESS=0.0.0.0:9464 \
    WORKER_TOOLS_ROOT=/workspace
WORKDIR /app
# The folder the file and search tools may read; mount documents here (read-only is enough).
RUN mkdir /workspace
COPY package.json ./
COPY --from=prod-deps /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY deploy/worker-healthcheck.mjs ./deploy/
# Everything above belongs to root and is only read: the worker runs as the image's unprivileged `node` user.
USER node
EXPOSE 8080 9464
HEALTHCHECK --interval=15s --timeout=5s --start-period=60s --retries=3 \
  CMD ["node", "/app/deploy/worker-healthcheck.mjs"]
ENTRYPOINT ["node", "dist/cli/main.js", "worker"]
