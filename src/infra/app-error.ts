// The error a route raises on purpose, and the body every error answer has. Kept free of Fastify and zod so that worker
// threads can throw it without loading them (src/infra/errors.ts turns it into the answer).

export interface ErrorBody {
  error: string;
  message: string;
  details: Record<string, unknown>;
}

/**
 * An error a route raises on purpose: its status, kind and details reach the client as they are. `internal` (an
 * exception's text, a file path, a host name) goes to the log, and into the body only for operators and in debug mode.
 */
export class AppError extends Error {
  constructor(
    readonly statusCode: number,
    readonly kind: string,
    message: string,
    readonly details: Record<string, unknown> = {},
    readonly internal?: string,
  ) {
    super(message);
    this.name = kind;
  }

  toBody(): ErrorBody {
    return { error: this.kind, message: this.message, details: this.details };
  }
}
