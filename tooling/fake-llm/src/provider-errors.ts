/**
 * Error bodies in each provider's documented shape, so the SDKs raise their typed errors
 * (`AuthenticationError`, `RateLimitError`, `InternalServerError`...) with the message intact.
 */

/** Messages used when a scripted error gives none; worded like the providers' own. */
export function defaultErrorMessage(status: number): string {
  if (status === 401) return "Incorrect API key provided.";
  if (status === 403) return "You are not allowed to use this model.";
  if (status === 404) return "The requested resource was not found.";
  if (status === 429) return "Rate limit reached. Please try again later.";
  if (status === 529) return "Overloaded.";
  if (status >= 500) return "The server had an error while processing your request.";
  return "Invalid request.";
}

/** OpenAI: `{"error": {"message", "type", "param", "code"}}`. */
export function openAiErrorBody(status: number, message: string): unknown {
  let type = "invalid_request_error";
  let code: string | null = null;
  if (status === 401) code = "invalid_api_key";
  else if (status === 403) type = "permission_error";
  else if (status === 404) code = "not_found";
  else if (status === 429) {
    type = "requests";
    code = "rate_limit_exceeded";
  } else if (status >= 500) type = "server_error";
  return { error: { message, type, param: null, code } };
}

/** Anthropic: `{"type": "error", "error": {"type", "message"}}`, the type chosen by status. */
export function anthropicErrorType(status: number): string {
  switch (status) {
    case 400:
      return "invalid_request_error";
    case 401:
      return "authentication_error";
    case 402:
      return "billing_error";
    case 403:
      return "permission_error";
    case 404:
      return "not_found_error";
    case 413:
      return "request_too_large";
    case 429:
      return "rate_limit_error";
    case 504:
      return "timeout_error";
    case 529:
      return "overloaded_error";
    default:
      return status >= 500 ? "api_error" : "invalid_request_error";
  }
}

export function anthropicErrorBody(status: number, message: string): unknown {
  return { type: "error", error: { type: anthropicErrorType(status), message } };
}
