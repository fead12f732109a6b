# The Cardtable service: Python 3.11, the web client built with Node, redis-server
# for the embedded default (compose.yaml points REDIS_URL at its own Redis instead).
FROM node:20-slim AS client
WORKDIR /src/client-web
COPY client-web/ ./
RUN if [ -f package.json ]; then \
      (npm ci --no-audit --no-fund || npm install --no-audit --no-fund) && npm run build; \
    fi; mkdir -p dist

FROM python:3.11-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends redis-server \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
# The locked versions (requirements/service.txt: what the service needs to run, no test
# tools), then the project without resolving anything again.
COPY requirements/service.txt requirements/
RUN pip install --no-cache-dir --require-hashes -r requirements/service.txt
COPY pyproject.toml README.md ./
COPY engine/ engine/
COPY server/ server/
COPY cli/ cli/
RUN pip install --no-cache-dir --no-deps --no-build-isolation . && pip check
COPY --from=client /src/client-web/dist client-web/dist
RUN useradd --create-home cardtable && mkdir -p var/redis /keys && chown -R cardtable /app/var /keys
USER cardtable
ENV CARDTABLE_HOST=0.0.0.0 CARDTABLE_PORT=8000 CARDTABLE_STATIC_DIR=/app/client-web/dist \
    CARDTABLE_LOG_JSON=true
EXPOSE 8000
HEALTHCHECK --interval=10s --timeout=3s CMD python -c "import urllib.request,sys; sys.exit(urllib.request.urlopen('http://127.0.0.1:8000/healthz').status != 200)"
# Without REDIS_URL the service runs its own redis-server with data in /app/var/redis.
CMD ["cardtable", "serve"]
