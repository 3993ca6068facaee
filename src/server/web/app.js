// The memory browser: picks a scope and wires the search, the facts list
// and the dialogs together. The scope is kept in the address (?scope=), so
// a reload or a bookmark opens the same one. Keys: "/" goes to the search
// box; Escape closes a dialog; everything else is a plain form control.
import { whenTokenNeeded, call } from "./api.js";
import { $, announce, el, guarded } from "./dom.js";
import { FactsView } from "./facts.js";
import { SearchView } from "./search.js";

let scope = new URLSearchParams(window.location.search).get("scope") || "default";

const app = {
  scope: () => scope,
  openFact: (id) => facts.dialog.open(id),
  // After any write: the list, the counts and the last search again.
  changed: async () => {
    await Promise.all([facts.reload(), loadScopes(), search.refresh()]);
  },
};
const facts = new FactsView(app);
const search = new SearchView(app);

async function loadScopes() {
  const { store } = await call("GET", "/v1/config");
  const counts = store.scopes;
  $("scopes").replaceChildren(...Object.keys(counts).map((name) => el("option", { value: name })));
  const n = counts[scope] || 0;
  $("scope-count").textContent = `${n} fact${n === 1 ? "" : "s"}, every version`;
}

async function openScope(name) {
  scope = name;
  $("scope").value = name;
  const url = new URL(window.location.href);
  url.searchParams.set("scope", name);
  window.history.replaceState(null, "", url);
  search.clear();
  await Promise.all([loadScopes(), facts.reload()]);
}

// Downloads the scope as JSONL, the format `engram import` reads back.
async function exportScope() {
  const text = await call("GET", "/v1/export", { query: { scope }, text: true });
  const count = text.split("\n").filter((line) => line !== "").length;
  const url = URL.createObjectURL(new Blob([text], { type: "application/x-ndjson" }));
  const link = el("a", { href: url, download: `engram-${scope}.jsonl`, hidden: true });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
  announce(`Exported ${count} fact(s) of ${scope}.`);
}

// The token form; resolves to the token given, or null.
function askToken(wrong) {
  const dialog = $("token-dialog");
  const form = $("token-form");
  const input = $("token");
  input.value = "";
  input.setCustomValidity("");
  if (wrong) announce("The server refused that token.", true);
  return new Promise((resolve) => {
    let given = null;
    const submit = (event) => {
      event.preventDefault();
      given = input.value;
      dialog.close();
    };
    form.addEventListener("submit", submit);
    $("token-cancel").onclick = () => dialog.close();
    dialog.addEventListener("close", () => {
      form.removeEventListener("submit", submit);
      resolve(given);
    }, { once: true });
    dialog.showModal();
    input.focus();
  });
}

whenTokenNeeded(askToken);

$("scope-form").addEventListener("submit", guarded(async (event) => {
  event.preventDefault();
  const name = $("scope").value.trim();
  if (name) await openScope(name);
}));
$("export").addEventListener("click", guarded(exportScope));

document.addEventListener("keydown", (event) => {
  const target = event.target;
  const typing = target instanceof HTMLInputElement || target instanceof HTMLTextAreaElement ||
    target instanceof HTMLSelectElement || target.isContentEditable;
  if (event.key === "/" && !typing && !document.querySelector("dialog[open]")) {
    event.preventDefault();
    $("search-query").focus();
  }
});

guarded(() => openScope(scope))();
