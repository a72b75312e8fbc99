# The sidecar image a Python strategy runs in (deploy/k8s/examples/runner-python-strategy.yaml):
# Debian's python3 with its gRPC and protobuf packages, the Python SDK (sdk/strategy-python) and
# the stubs of proto/svc/strategy/v1, generated here by the same python3-grpc-tools the sandbox
# uses locally (services/bots/src/sandbox/python/stubs.ts), so an image cannot carry stale ones.
# The strategy's file is not in the image: the pod mounts the version's source read-only.
# Build from the repository root: docker build -f deploy/strategy-python.Dockerfile .
ARG BASE_IMAGE=debian:bookworm-slim
FROM ${BASE_IMAGE}
RUN apt-get update -qq \
  && apt-get install -y -qq --no-install-recommends python3 python3-grpcio python3-protobuf python3-grpc-tools \
  && rm -rf /var/lib/apt/lists/*
WORKDIR /opt/svc
COPY proto/svc/strategy/v1/strategy.proto proto/svc/strategy/v1/
COPY sdk/strategy-python/svc_strategy sdk/svc_strategy
RUN mkdir gen && python3 -m grpc_tools.protoc -Iproto \
  -I/usr/lib/python3/dist-packages/grpc_tools/_proto \
  --python_out=gen --grpc_python_out=gen svc/strategy/v1/strategy.proto
ENV PYTHONPATH=/opt/svc/gen:/opt/svc/sdk PYTHONDONTWRITEBYTECODE=1
USER 65534
ENTRYPOINT ["python3", "-m", "svc_strategy.serve"]
CMD ["/var/run/svc-strategy/strategy.sock", "/strategy/strategy.py"]
