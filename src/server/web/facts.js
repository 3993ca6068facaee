// The facts of a scope: the list (newest first, filtered by tag, kind and
// dates, 50 at a time), the form that adds one, and the fact dialog with
// its history, where a fact is edited (a new version; the old one stays in
// the history), tagged or forgotten.
import { call } from "./api.js";
import { $, announce, confirmChoice, dayBound, el, guarded, shorten, splitTags, when } from "./dom.js";

const PAGE = 50;

// A fact's line of particulars: kind, tags, dates, how often searches
// returned it, and whether a newer version replaced it.
export function factMeta(fact) {
  const used = [`used ${fact.access_count}×`];
  if (fact.access_count > 0) used.push(", last ", when(fact.last_accessed));
  return el("p", { class: "meta" },
    el("span", { class: "kind", text: fact.kind }),
    fact.tags.map((t) => el("span", { class: "tag", text: `#${t}` })),
    el("span", {}, "added ", when(fact.created_at)),
    fact.updated_at !== fact.created_at ? el("span", {}, "changed ", when(fact.updated_at)) : null,
    el("span", {}, used),
    fact.superseded_by
      ? el("span", { class: "badge", text: `replaced by ${fact.superseded_by.slice(0, 8)}` })
      : null,
    el("code", { class: "id", title: fact.id, text: fact.id.slice(0, 8) }));
}

// Asks, then forgets `fact` of `scope`. A current fact with older versions
// needs a choice: bring the previous one back, or forget them all. Resolves
// to true when something was forgotten.
export async function forgetFact(scope, fact) {
  let versions = 1;
  if (!fact.superseded_by) {
    versions = (await call("GET", `/v1/facts/${fact.id}/history`, { query: { scope } })).count;
  }
  const quoted = `“${shorten(fact.content, 140)}”`;
  const choices = versions > 1
    ? [{ label: "Forget it, bring back the previous version", value: "restore", danger: true },
       { label: `Forget all ${versions} versions`, value: "delete", danger: true }]
    : [{ label: "Forget", value: "one", danger: true }];
  const detail = versions > 1 ? `It has ${versions - 1} older version(s).` : "It is removed for good.";
  const choice = await confirmChoice("Forget this fact?", `${quoted} ${detail}`, choices);
  if (choice === null) return false;
  const query = { scope };
  if (choice !== "one") query.history = choice;
  const answer = await call("DELETE", `/v1/facts/${fact.id}`, { query });
  announce(`Forgot ${answer.forgotten} fact(s).`);
  return true;
}

export class FactsView {
  // `app` gives scope() and changed() (after any write).
  constructor(app) {
    this.app = app;
    this.filters = {};
    this.offset = 0;
    this.dialog = new FactDialog(app);
    const filters = $("filter-form");
    filters.addEventListener("submit", guarded(async (event) => {
      event.preventDefault();
      this.filters = FactsView.filtersOf(filters);
      await this.reload();
    }));
    filters.addEventListener("reset", () => {
      this.filters = {};
      setTimeout(guarded(() => this.reload()), 0);
    });
    $("more").addEventListener("click", guarded(() => this.load(false)));
    $("add-form").addEventListener("submit", guarded(async (event) => {
      event.preventDefault();
      await this.add(event.target);
    }));
  }

  static filtersOf(form) {
    const data = new FormData(form);
    return {
      tag: data.get("tag").trim().toLowerCase(),
      kind: data.get("kind").trim(),
      since: dayBound(data.get("since")),
      until: dayBound(data.get("until"), true),
      include_superseded: data.get("include_superseded") ? "true" : undefined,
    };
  }

  async reload() {
    await this.load(true);
  }

  async load(fresh) {
    const offset = fresh ? 0 : this.offset;
    const answer = await call("GET", "/v1/facts", {
      query: { scope: this.app.scope(), limit: PAGE, offset, ...this.filters },
    });
    const list = $("facts");
    if (fresh) list.replaceChildren();
    for (const fact of answer.facts) list.append(this.card(fact));
    if (fresh && answer.count === 0) {
      list.append(el("li", { class: "empty", text: "No fact of this scope matches these filters." }));
    }
    this.offset = offset + answer.count;
    $("more").hidden = answer.count < PAGE;
  }

  card(fact) {
    const preview = shorten(fact.content, 40);
    return el("li", { class: fact.superseded_by ? "card superseded" : "card", "data-id": fact.id },
      el("p", { class: "content", text: fact.content }),
      factMeta(fact),
      el("div", { class: "actions" },
        el("button", {
          type: "button", text: "Open", "aria-label": `Open ${preview}`,
          onclick: guarded(() => this.dialog.open(fact.id)),
        }),
        el("button", {
          type: "button", class: "danger", text: "Forget…", "aria-label": `Forget ${preview}`,
          onclick: guarded(async () => {
            if (await forgetFact(this.app.scope(), fact)) await this.app.changed();
          }),
        })));
  }

  async add(form) {
    const data = new FormData(form);
    const body = { scope: this.app.scope(), content: data.get("content").trim(), tags: splitTags(data.get("tags")) };
    if (data.get("kind").trim()) body.kind = data.get("kind").trim();
    const answer = await call("POST", "/v1/facts", { body });
    const [stored] = answer.facts;
    announce(answer.added ? `Added ${stored.id.slice(0, 8)}.`
                          : `Already remembered as ${stored.id.slice(0, 8)}; its tags were merged.`);
    for (const warning of answer.warnings) announce(warning);
    form.reset();
    await this.app.changed();
  }
}

// The dialog of one fact: its particulars, the edit form and its history.
class FactDialog {
  constructor(app) {
    this.app = app;
    this.fact = null;
    this.element = $("fact-dialog");
    $("fact-close").addEventListener("click", () => this.element.close());
    $("edit-form").addEventListener("submit", guarded(async (event) => {
      event.preventDefault();
      await this.save(new FormData(event.target));
    }));
    $("fact-forget").addEventListener("click", guarded(async () => {
      if (await forgetFact(this.app.scope(), this.fact)) {
        this.element.close();
        await this.app.changed();
      }
    }));
  }

  async open(id) {
    await this.show(id);
    if (!this.element.open) this.element.showModal();
    this.element.querySelector("textarea").focus();
  }

  async show(id) {
    const query = { scope: this.app.scope() };
    const [fact, history] = await Promise.all([
      call("GET", `/v1/facts/${id}`, { query }),
      call("GET", `/v1/facts/${id}/history`, { query }),
    ]);
    this.fact = fact;
    const extra = [`source: ${fact.source || "none"}`, `confidence ${fact.confidence}`];
    if (Object.keys(fact.metadata).length > 0) extra.push(`metadata ${JSON.stringify(fact.metadata)}`);
    if (fact.expires_at) extra.push(`expires ${new Date(fact.expires_at).toLocaleString()}`);
    $("fact-detail").replaceChildren(
      el("p", { class: "content", text: fact.content }),
      factMeta(fact),
      el("p", { class: "meta muted", text: extra.join(" · ") }));
    const form = $("edit-form");
    form.elements.content.value = fact.content;
    form.elements.tags.value = fact.tags.join(", ");
    form.elements.kind.value = fact.kind;
    for (const field of form.elements) field.disabled = Boolean(fact.superseded_by);
    $("history").replaceChildren(...history.facts.map((version) => el("li", {
      class: version.superseded_by ? "version superseded" : "version current",
      "aria-current": version.id === fact.id ? "true" : null,
    },
    el("p", { class: "content", text: version.content }),
    el("p", { class: "meta" },
      el("span", {}, "added ", when(version.created_at)),
      version.superseded_by
        ? el("span", { class: "badge" }, "replaced ", when(version.valid_until))
        : el("span", { class: "badge current", text: "current" }),
      el("code", { class: "id", title: version.id, text: version.id.slice(0, 8) })))));
  }

  // A new text is an update (a new version, the old one kept). The same
  // text with more tags or another kind is added again, which merges them
  // into the fact (the engine's rule: a merge adds tags and sets a kind
  // other than the default, it never removes one).
  async save(data) {
    const scope = this.app.scope();
    const fact = this.fact;
    const content = data.get("content").trim();
    const tags = splitTags(data.get("tags")).map((t) => t.toLowerCase());
    const kind = data.get("kind").trim() || "fact";
    if (content !== fact.content) {
      const answer = await call("PUT", `/v1/facts/${fact.id}`, { body: { scope, content, tags, kind } });
      announce(`Saved as a new version (${answer.fact.id.slice(0, 8)}); the old text is kept in its history.`);
      await this.show(answer.fact.id);
    } else {
      const dropped = fact.tags.filter((t) => !tags.includes(t));
      if (dropped.length > 0 || (kind === "fact" && fact.kind !== "fact")) {
        announce("Tags are dropped, and the kind set back to fact, only with a new text: " +
                 "change the text too, and the old version keeps what it had.", true);
        return;
      }
      if (tags.length === fact.tags.length && kind === fact.kind) {
        announce("Nothing changed.");
        return;
      }
      await call("POST", "/v1/facts", { body: { scope, content, tags, kind } });
      announce("Tags and kind saved.");
      await this.show(fact.id);
    }
    await this.app.changed();
  }
}
