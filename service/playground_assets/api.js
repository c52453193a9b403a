// Calls to the public API: JSON in and out, errors as problem+json (RFC 9457).

export class ApiError extends Error {
  /** A failed call: the HTTP status (0: no answer) and the problem document. */
  constructor(status, problem) {
    super(problem.detail || problem.title || `HTTP ${status}`);
    this.status = status;
    this.problem = problem;
  }

  get code() {
    return this.problem.code || 'error';
  }
}

/**
 * One API call. `token` sends `Authorization: Bearer`, `body` is sent as JSON,
 * `headers` adds others. Answers `{data, response}`; throws an ApiError otherwise.
 */
export async function call(method, path, { token, body, headers } = {}) {
  const h = { Accept: 'application/json, application/problem+json', ...headers };
  const init = { method, headers: h, cache: 'no-store' };
  if (token) h.Authorization = `Bearer ${token}`;
  if (body !== undefined) {
    h['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  let response;
  try {
    response = await fetch(path, init);
  } catch (err) {
    throw new ApiError(0, {
      code: 'network_error',
      detail: `the service cannot be reached (${err.message})`,
    });
  }
  const type = response.headers.get('Content-Type') || '';
  const data = type.includes('json') ? await response.json().catch(() => null) : null;
  if (!response.ok) {
    const problem = data && typeof data === 'object' ? data
      : { detail: `HTTP ${response.status} ${response.statusText}` };
    throw new ApiError(response.status, problem);
  }
  return { data, response };
}
