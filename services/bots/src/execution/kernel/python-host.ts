import {
  DEFAULT_SANDBOX_LIMITS,
  SandboxUnavailable,
  StrategyFailure,
  type SandboxLimits,
} from "../../sandbox/index.js";
import { startPythonStrategy } from "../../sandbox/python/process.js";
import { GrpcStrategyHost, type GrpcInit } from "./grpc-host.js";

export interface PythonHostOptions extends GrpcInit {
  /** The strategy file's Python source (on the Python SDK, sdk/strategy-python). */
  source: string;
  /** The symbol the kernel trades. */
  symbol: string;
  limits?: Partial<SandboxLimits>;
}

/**
 * A Python strategy as the kernel's host: its gRPC server started in the sandbox, connected over
 * its socket, and initialised (params resolved, init run). A failure on the way ends the process
 * and rejects with StrategyFailure; a host without Debian's Python, its gRPC packages or
 * bubblewrap rejects with SandboxUnavailable (the platform's fault, not the strategy's).
 */
export async function startPythonHost(options: PythonHostOptions): Promise<GrpcStrategyHost> {
  const limits = { ...DEFAULT_SANDBOX_LIMITS, ...options.limits };
  const process = await startPythonStrategy(options.source, limits).catch((error: unknown) => {
    throw new SandboxUnavailable((error as Error).message);
  });
  const host = new GrpcStrategyHost({
    socketPath: process.socketPath,
    symbol: options.symbol,
    limits,
    process,
  });
  try {
    await host.init(options);
  } catch (error) {
    host.close();
    // Whoever started the run never gets the host: the lines init wrote go with its failure.
    if (
      error instanceof StrategyFailure &&
      !error.callLogs &&
      host.logs.length + host.logsDropped > 0
    )
      error.callLogs = { lines: [...host.logs], dropped: host.logsDropped };
    throw error;
  }
  return host;
}
