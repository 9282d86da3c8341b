FROM python:3.11-slim
WORKDIR /app
COPY pyproject.toml README.md ./
COPY server ./server
COPY client ./client
RUN pip install --no-cache-dir .
ENV PATIENCE_HOST=0.0.0.0 PATIENCE_PORT=8765
EXPOSE 8765
CMD ["patience-server", "serve"]
