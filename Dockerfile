# dexlake for production: one image, run as `index` (the indexer) or `serve` (the api) against a real PostgreSQL.
# Build stage: full install, then the type check, so a broken tree never becomes an image.
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json tsconfig.json ./
RUN npm ci
COPY bin ./bin
COPY near ./near
COPY dexes ./dexes
COPY db ./db
COPY devnet ./devnet
COPY migrations ./migrations
COPY indexer ./indexer
COPY api ./api
COPY cli ./cli
RUN npx tsc --noEmit

# Runtime stage: production dependencies only, sources from the checked build, no root.
FROM node:20-bookworm-slim
ENV NODE_ENV=production
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev && npm cache clean --force
COPY --from=build /app/bin ./bin
COPY --from=build /app/near ./near
COPY --from=build /app/dexes ./dexes
COPY --from=build /app/db ./db
COPY --from=build /app/devnet ./devnet
COPY --from=build /app/migrations ./migrations
COPY --from=build /app/indexer ./indexer
COPY --from=build /app/api ./api
COPY --from=build /app/cli ./cli
USER node
EXPOSE 3000
ENTRYPOINT ["node", "bin/dexlake.js"]
CMD ["serve"]
