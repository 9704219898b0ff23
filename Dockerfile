# dexlake for production: one image, run as `index` (the indexer) or `serve` (the api) against a real PostgreSQL.
# Build stage: full install, then the type check, so a broken tree never becomes an image, and the web explorer.
# The root's `prepare` (the explorer's build) needs the sources: installs skip it and run the dependencies' own
# scripts with `npm rebuild`.
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json tsconfig.json ./
RUN npm ci --ignore-scripts && npm rebuild
COPY bin ./bin
COPY near ./near
COPY dexes ./dexes
COPY db ./db
COPY devnet ./devnet
COPY migrations ./migrations
COPY indexer ./indexer
COPY api ./api
COPY cli ./cli
COPY web/index.html web/generate.ts web/vite.config.ts web/tsconfig.json ./web/
COPY web/src ./web/src
RUN npx tsc --noEmit && npm run build:web

# Runtime stage: production dependencies only, sources from the checked build and the built explorer, no root.
FROM node:20-bookworm-slim
ENV NODE_ENV=production
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts && npm rebuild && npm cache clean --force
COPY --from=build /app/bin ./bin
COPY --from=build /app/near ./near
COPY --from=build /app/dexes ./dexes
COPY --from=build /app/db ./db
COPY --from=build /app/devnet ./devnet
COPY --from=build /app/migrations ./migrations
COPY --from=build /app/indexer ./indexer
COPY --from=build /app/api ./api
COPY --from=build /app/cli ./cli
COPY --from=build /app/web/dist ./web/dist
USER node
EXPOSE 3000
ENTRYPOINT ["node", "bin/dexlake.js"]
CMD ["serve"]
