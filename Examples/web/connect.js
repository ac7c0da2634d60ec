// Unary calls in the Connect protocol with JSON: one POST per call to the service's method path.
const service = "vicontinue.v1.VisualSearch";

/** An error the server answered, with its Connect code (`not_found`) and message. */
export class CallError extends Error {
  constructor(code, message) {
    super(message || code);
    this.code = code;
  }
}

/** Calls `method` with `request` (proto3 JSON) and returns the response's JSON. */
export async function call(method, request) {
  let response;
  try {
    response = await fetch(`/${service}/${method}`, {
      method: "POST",
      headers: { "content-type": "application/json", "connect-protocol-version": "1" },
      body: JSON.stringify(request),
    });
  } catch (error) {
    throw new CallError("unavailable", `The server cannot be reached: ${error.message}`);
  }
  const body = await response.json().catch(() => ({}));
  if (!response.ok) throw new CallError(body.code || "unknown", body.message || response.statusText);
  return body;
}
