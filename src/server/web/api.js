// The HTTP API as the page calls it, with the same headers any client
// sends: JSON bodies say Content-Type: application/json, and the browser
// adds the page's Origin, which the server accepts for its own page. On
// loopback no token is needed. Off loopback the server answers 401 until
// the bearer token comes along: the page then asks for it (askToken) and
// keeps it in sessionStorage, so it lives as long as this tab and is never
// written anywhere else.

const TOKEN_KEY = "engram.token";

export class ApiError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

let askToken = async () => null;
let asking = null;  // the token form's answer while it is open

// `ask(wrong)` shows the token form (`wrong` when the last one was
// refused) and resolves to the token given, or null when the user cancels.
export function whenTokenNeeded(ask) {
  askToken = ask;
}

// One form for all the calls that meet a 401 while it is open.
function tokenFromUser(wrong) {
  if (!asking) {
    asking = askToken(wrong).then((given) => {
      asking = null;
      if (given) sessionStorage.setItem(TOKEN_KEY, given);
      return given;
    });
  }
  return asking;
}

function urlOf(path, query) {
  const url = new URL(path, window.location.origin);
  for (const [name, value] of Object.entries(query || {})) {
    for (const item of [].concat(value)) {
      if (item !== undefined && item !== null && item !== "") url.searchParams.append(name, item);
    }
  }
  return url;
}

async function errorOf(response) {
  try {
    const { error } = await response.json();
    if (error && error.message) return new ApiError(response.status, error.code, error.message);
  } catch {
    // not the API's JSON: fall through to the status line
  }
  return new ApiError(response.status, `http_${response.status}`, response.statusText);
}

// Calls `method path` with `query` parameters and a JSON `body`; resolves
// to the parsed answer, or to its text with `text: true`. Rejects with an
// ApiError that carries the server's own message.
export async function call(method, path, { query, body, text = false } = {}) {
  const url = urlOf(path, query);
  for (let asked = 0; ; ++asked) {
    const headers = { Accept: text ? "application/x-ndjson" : "application/json" };
    const token = sessionStorage.getItem(TOKEN_KEY);
    if (token) headers.Authorization = `Bearer ${token}`;
    const init = { method, headers, cache: "no-store", credentials: "omit" };
    if (body !== undefined) {
      headers["Content-Type"] = "application/json";
      init.body = JSON.stringify(body);
    }
    const response = await fetch(url, init);
    if (response.status === 401 && asked < 3) {
      const latest = sessionStorage.getItem(TOKEN_KEY);
      if (latest !== null && latest !== token) continue;  // another call was given one meanwhile
      if (!(await tokenFromUser(token !== null))) {
        throw new ApiError(401, "unauthenticated", "this server needs its token");
      }
      continue;
    }
    if (!response.ok) throw await errorOf(response);
    return text ? response.text() : response.json();
  }
}
