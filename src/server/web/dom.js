// Building the page from data. Elements get text, never HTML made from a
// fact, so nothing a memory holds can run as script; there are no inline
// styles either (the Content-Security-Policy allows none): sizes are set
// through the CSSOM.

// el("li", {class: "card", onclick: f}, child, "text", ...): a new element.
// Props: class, text, on<event> listeners, and attributes (true: present;
// false, null or undefined: left out).
export function el(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "class") node.className = value;
    else if (key === "text") node.textContent = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value === true ? "" : String(value));
  }
  for (const child of children.flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue;
    node.append(child instanceof Node ? child : String(child));
  }
  return node;
}

export function $(id) {
  return document.getElementById(id);
}

// A <time> showing an ISO-8601 instant in the reader's time zone.
export function when(iso) {
  if (!iso) return el("span", { text: "never" });
  const date = new Date(iso);
  return el("time", {
    datetime: iso,
    title: iso,
    text: date.toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" }),
  });
}

// The start (or with `end`, the last millisecond) of a yyyy-mm-dd day in
// the reader's time zone, as the API's ISO-8601.
export function dayBound(day, end = false) {
  if (!day) return undefined;
  const [y, m, d] = day.split("-").map(Number);
  const instant = end ? new Date(y, m - 1, d + 1) - 1 : new Date(y, m - 1, d);
  return new Date(instant).toISOString();
}

// `text` cut to at most `n` characters, an ellipsis marking the cut.
export function shorten(text, n) {
  return text.length > n ? `${text.slice(0, n)}…` : text;
}

// "a, b ,c" -> ["a", "b", "c"].
export function splitTags(text) {
  return (text || "").split(",").map((t) => t.trim()).filter((t) => t !== "");
}

// Says what happened (or went wrong) in the status line read out by
// screen readers.
export function announce(message, isError = false) {
  const status = $("status");
  status.textContent = message;
  status.classList.toggle("error", isError);
}

// Runs `action`, showing its error in the status line instead of losing it.
export function guarded(action) {
  return async (...args) => {
    try {
      await action(...args);
    } catch (error) {
      announce(error.message, true);
    }
  };
}

// Asks in the confirmation dialog. `choices` are [{label, value, danger}];
// resolves to the value chosen, or null for Cancel or Escape. Cancel has
// the focus, so Enter alone never deletes.
export function confirmChoice(title, text, choices) {
  const dialog = $("confirm-dialog");
  $("confirm-title").textContent = title;
  $("confirm-text").textContent = text;
  return new Promise((resolve) => {
    let chosen = null;
    const cancel = el("button", { type: "button", text: "Cancel", onclick: () => dialog.close() });
    const buttons = choices.map((c) => el("button", {
      type: "button",
      class: c.danger ? "danger" : null,
      text: c.label,
      onclick: () => {
        chosen = c.value;
        dialog.close();
      },
    }));
    $("confirm-actions").replaceChildren(cancel, ...buttons);
    dialog.addEventListener("close", () => resolve(chosen), { once: true });
    dialog.showModal();
    cancel.focus();
  });
}
