// Search, with each result's explanation drawn as bars: for each signal
// (semantic: cosine with the query; lexical: BM25; temporal: recency × use)
// its value normalised over the candidates, and in blended mode its share
// of the score, weight × normalised value, stacked into the score bar.
// Searches from the page do not count as uses of the facts (record:
// false), so looking at the memory does not change how it ranks.
import { call } from "./api.js";
import { $, announce, el, guarded } from "./dom.js";
import { factMeta } from "./facts.js";

const SIGNALS = [
  ["semantic", "meaning"],
  ["lexical", "words"],
  ["temporal", "recency × use"],
];
const RESULTS = 20;

function fixed(x) {
  return Number(x).toFixed(3);
}

// The coloured part of a bar, `fraction` (0..1) of the bar's width.
function fill(kind, fraction, title) {
  const part = el("span", { class: `fill ${kind}`, title });
  part.style.width = `${Math.max(0, Math.min(1, fraction)) * 100}%`;
  return part;
}

// A bar filled to `fraction`; `label` is what a screen reader says of it.
function bar(kind, fraction, label) {
  return el("span", { class: "bar", role: "img", "aria-label": label }, fill(kind, fraction));
}

// Blended: the score as the sum of its signals' shares.
function scoreBar(hit) {
  const shares = SIGNALS.map(([name]) => {
    const s = hit.signals[name];
    return [name, s.present ? hit.weights[name] * s.normalized : 0];
  });
  const said = shares.map(([name, share]) => `${name} ${fixed(share)}`).join(", ");
  return el("span", { class: "bar stacked", role: "img", "aria-label": `score ${fixed(hit.score)}: ${said}` },
    shares.map(([name, share]) => fill(name, share, `${name} ${fixed(share)}`)));
}

function explanation(hit, mode) {
  const rows = SIGNALS.map(([name, meaning]) => {
    const s = hit.signals[name];
    const weight = hit.weights[name];
    const detail = !s.present
      ? "no signal for this fact"
      : `raw ${fixed(s.raw)} → ${fixed(s.normalized)} normalised` +
        (mode === "blended" ? ` × weight ${fixed(weight)} = ${fixed(weight * s.normalized)}` : "") +
        `, rank ${s.rank} among the candidates`;
    return el("div", { class: "signal" },
      el("span", { class: "name" }, name, el("small", { text: meaning })),
      bar(name, s.present ? s.normalized : 0, `${name}: ${detail}`),
      el("span", { class: "detail", text: detail }));
  });
  const notes = [];
  if (hit.matched_terms.length > 0) {
    notes.push(el("p", {}, "Words matched: ", hit.matched_terms.map((t) => el("code", { text: t })), "."));
  }
  if (hit.newer_version_of) {
    notes.push(el("p", {
      text: `Ranked in place of the older version ${hit.newer_version_of.slice(0, 8)} it replaced; ` +
            `on its own signals it scores ${fixed(hit.own_score)}.`,
    }));
  }
  return [el("div", { class: "signals" }, rows), notes];
}

export class SearchView {
  // `app` gives scope() and openFact(id).
  constructor(app) {
    this.app = app;
    this.last = null;
    $("search-form").addEventListener("submit", guarded(async (event) => {
      event.preventDefault();
      const data = new FormData(event.target);
      this.last = { query: data.get("query").trim(), mode: data.get("mode") };
      await this.run();
    }));
  }

  clear() {
    this.last = null;
    $("results").replaceChildren();
    $("search-note").hidden = true;
  }

  // Runs the last search again (after a write, so results stay true),
  // leaving the status line to the write.
  async refresh() {
    if (this.last) await this.run(false);
  }

  async run(say = true) {
    const body = { query: this.last.query, scope: this.app.scope(), k: RESULTS, explain: true, record: false };
    if (this.last.mode) body.mode = this.last.mode;
    const answer = await call("POST", "/v1/search", { body });
    const note = $("search-note");
    const said = [answer.note || `${answer.hits.length} result(s) from ${answer.candidates} candidate(s), ${answer.mode}.`];
    if (answer.hyde && answer.hyde.keywords.length > 0) said.push(`Expanded with: ${answer.hyde.keywords.join(", ")}.`);
    said.push(...answer.warnings);
    note.textContent = said.join(" ");
    note.hidden = false;
    $("results").replaceChildren(...answer.hits.map((hit, i) => this.card(hit, i, answer.mode)));
    if (say) announce(`${answer.hits.length} result(s) for “${answer.query}”.`);
  }

  card(hit, index, mode) {
    const panel = el("div", { class: "why", id: `why-${index}`, hidden: true }, explanation(hit, mode));
    const toggle = el("button", {
      type: "button", class: "why-toggle", "aria-expanded": "false", "aria-controls": panel.id,
      text: "Why this rank?",
    });
    toggle.addEventListener("click", () => {
      panel.hidden = !panel.hidden;
      toggle.setAttribute("aria-expanded", String(!panel.hidden));
    });
    return el("li", { class: "card hit", "data-id": hit.fact.id },
      el("div", { class: "hit-head" },
        el("span", { class: "rank", text: `#${index + 1}` }),
        el("span", { class: "score", text: fixed(hit.score) }),
        mode === "blended" ? scoreBar(hit) : bar("score", hit.score, `score ${fixed(hit.score)}`)),
      el("p", { class: "content", text: hit.fact.content }),
      factMeta(hit.fact),
      el("div", { class: "actions" },
        toggle,
        el("button", { type: "button", text: "Open", onclick: guarded(() => this.app.openFact(hit.fact.id)) })),
      panel);
  }
}
