// The memory browser as a person uses it: Debian's Chromium, headless and
// driven by playwright-core, against a real `engram serve` on loopback
// with the embedded model. Each step is checked on the page and then in the
// store through the HTTP API, and leaves a screenshot of the page:
//   01-facts      the scope's facts, newest first, with their uses
//   02-search     a search and its results
//   03-explain    why the first result ranked: a bar per signal
//   04-history    a fact edited; its old version in the history
//   05-confirm    forgetting asks first
//   06-forgotten  the fact gone from the page and the store
//   07-token      a server with a token: the page asks for it
//   08-phone      the same page on a phone-sized screen
// Nothing on the page may break its Content-Security-Policy or log an error.
//
//   node browser_session.mjs ENGRAM_BINARY MODELS_DIR SCREENSHOT_DIR
//
// Run by scripts/node_test.sh from the directory playwright-core is
// installed in.
import { mkdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";

import { chromium } from "playwright-core";

import { privateHome, startServe } from "./engram_serve.mjs";

const [engram, models, shots] = process.argv.slice(2);
const CHROMIUM = "/usr/bin/chromium";
const SCOPE = "alice";
const TOKEN = "a-token-for-the-browser-test";
const FACTS = [
  { content: "The staging database listens on port 5433", tags: ["db"] },
  { content: "Backups of the staging database run nightly at 02:00", tags: ["db", "ops"] },
  { content: "The production database listens on port 5432 behind pgbouncer", tags: ["db"] },
  { content: "Maya is allergic to peanuts", tags: ["family"] },
  { content: "Standup is at 9:30 every weekday", tags: ["work"], kind: "lesson" },
  { content: "Deploys are frozen on Fridays", tags: ["ops"] },
  { content: "Alice prefers dark mode in every editor", kind: "preference" },
  { content: "The VPN certificate expires in March", tags: ["ops", "security"] },
];

function check(condition, what) {
  if (!condition) throw new Error(what);
}

// The API as a plain client (no Origin: not a browser).
async function api(server, method, path, body, token) {
  const headers = { "Content-Type": "application/json" };
  if (token) headers.Authorization = `Bearer ${token}`;
  const response = await fetch(server.url + path, {
    method, headers, body: body === undefined ? undefined : JSON.stringify(body),
  });
  const answer = await response.json();
  return { status: response.status, ...answer };
}

async function currentFacts(server, token) {
  const listed = await api(server, "GET", `/v1/facts?scope=${SCOPE}&limit=100`, undefined, token);
  check(listed.status === 200, `list: ${JSON.stringify(listed)}`);
  return listed.facts;
}

// The whole page, or with a dialog open, what the screen shows.
async function shot(page, name) {
  const dialogOpen = await page.evaluate(() => document.querySelector("dialog[open]") !== null);
  await page.screenshot({ path: join(shots, `${name}.png`), fullPage: !dialogOpen });
}

// Every error the page logs, and every Content-Security-Policy violation.
function watchForErrors(page, errors) {
  page.on("console", (message) => {
    if (message.type() === "error") errors.push(`console: ${message.text()}`);
  });
  page.on("pageerror", (error) => errors.push(`page: ${error.message}`));
}

async function browse(browser, server) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, acceptDownloads: true });
  const page = await context.newPage();
  const errors = [];
  watchForErrors(page, errors);
  await page.addInitScript(() => {
    document.addEventListener("securitypolicyviolation", (e) => {
      console.error(`CSP violation: ${e.violatedDirective} ${e.blockedURI}`);
    });
  });

  // An agent's search records a use of what it returns; the page shows it.
  const used = await api(server, "POST", "/v1/search", { query: "what is Maya allergic to", scope: SCOPE, k: 1 });
  check(used.hits.length === 1 && used.hits[0].fact.content.startsWith("Maya"), `agent search: ${JSON.stringify(used.hits)}`);

  // 1. The scope's facts, newest first, as the API lists them.
  const response = await page.goto(`${server.url}/?scope=${SCOPE}`);
  const policy = response.headers()["content-security-policy"] || "";
  check(policy.includes("script-src 'self'") && !policy.includes("unsafe-inline"),
        `page policy: ${policy}`);
  const cards = page.locator("#facts > li.card");
  await cards.first().waitFor();
  check(await cards.count() === FACTS.length, `list shows ${await cards.count()} facts`);
  const listed = await currentFacts(server);
  const shown = await page.locator("#facts > li.card .content").allTextContents();
  check(JSON.stringify(shown) === JSON.stringify(listed.map((f) => f.content)),
        `page order ${JSON.stringify(shown)} is not the API's`);
  check(shown[0] === FACTS[FACTS.length - 1].content, `newest first: ${shown[0]}`);
  const uses = await page.locator("#facts > li.card", { hasText: "Maya" }).locator(".meta").textContent();
  check(listed.find((f) => f.content.startsWith("Maya")).access_count === 1 && uses.includes("used 1×"),
        `Maya's use on the page: ${uses}`);
  check((await page.locator("#scope-count").textContent()).startsWith(`${FACTS.length} facts`),
        "scope count");
  await shot(page, "01-facts");

  // Filters: by tag, then cleared.
  await page.fill("#filter-form input[name=tag]", "ops");
  await page.click("#filter-form button[type=submit]");
  const ops = FACTS.filter((f) => (f.tags || []).includes("ops")).length;
  await page.waitForFunction((n) => document.querySelectorAll("#facts > li.card").length === n, ops);
  await page.click("#filter-form button[type=reset]");
  await page.waitForFunction((n) => document.querySelectorAll("#facts > li.card").length === n, FACTS.length);
  // By kind, then by date: nothing was added after today.
  await page.fill("#filter-form input[name=kind]", "lesson");
  await page.click("#filter-form button[type=submit]");
  await page.waitForFunction(() => document.querySelectorAll("#facts > li.card").length === 1);
  await page.click("#filter-form button[type=reset]");
  const tomorrow = await page.evaluate(() => {
    const d = new Date(Date.now() + 86400000);
    return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, "0")}-${String(d.getDate()).padStart(2, "0")}`;
  });
  await page.fill("#filter-form input[name=since]", tomorrow);
  await page.click("#filter-form button[type=submit]");
  await page.locator("#facts > li.empty").waitFor();
  await page.click("#filter-form button[type=reset]");
  await page.waitForFunction((n) => document.querySelectorAll("#facts > li.card").length === n, FACTS.length);

  // 2. Search from the keyboard: "/" goes to the box, Enter searches.
  await page.locator("body").press("/");
  check(await page.evaluate(() => document.activeElement.id) === "search-query", "'/' focuses the search");
  await page.keyboard.type("which port does staging use");
  await page.keyboard.press("Enter");
  const hits = page.locator("#results > li.card");
  await hits.first().waitFor();
  const first = (await hits.first().locator(".content").textContent());
  check(first.includes("5433"), `first result: ${first}`);
  const staging = listed.find((f) => f.content.includes("5433"));
  const seen = await api(server, "GET", `/v1/facts/${staging.id}?scope=${SCOPE}`);
  check(seen.access_count === 0, `a search from the page counted as a use: ${seen.access_count}`);
  await shot(page, "02-search");

  // 3. The explain view: a bar per signal, the score bar their sum.
  const toggle = hits.first().locator("button.why-toggle");
  await toggle.click();
  check(await toggle.getAttribute("aria-expanded") === "true", "explain toggle state");
  const why = hits.first().locator(".why");
  await why.waitFor();
  check(await why.locator(".signal").count() === 3, "three signals");
  const widths = await hits.first().evaluate((hit) => {
    const share = (sel) => Array.from(hit.querySelectorAll(sel))
      .map((e) => e.getBoundingClientRect().width / e.parentElement.getBoundingClientRect().width);
    return { stacked: share(".hit-head .fill").reduce((a, b) => a + b, 0),
             semantic: share(".why .fill.semantic")[0], lexical: share(".why .fill.lexical")[0] };
  });
  const searched = await api(server, "POST", "/v1/search",
                             { query: "which port does staging use", scope: SCOPE, explain: true, record: false });
  const top = searched.hits[0];
  check(top.fact.id === staging.id, "the API ranks the same fact first");
  check(Math.abs(widths.stacked - top.score) < 0.02, `score bar ${widths.stacked} against score ${top.score}`);
  check(Math.abs(widths.semantic - top.signals.semantic.normalized) < 0.02, `semantic bar ${widths.semantic}`);
  check(Math.abs(widths.lexical - top.signals.lexical.normalized) < 0.02, `lexical bar ${widths.lexical}`);
  await shot(page, "03-explain");

  // 4. Edit the staging fact: a new version, the old one in its history.
  await page.locator("#facts > li.card", { hasText: "5433" }).getByRole("button", { name: /^Open/ }).click();
  const dialog = page.locator("#fact-dialog");
  await dialog.waitFor();
  await dialog.locator("textarea[name=content]").fill("The staging database moved to port 6432");
  await dialog.getByRole("button", { name: "Save" }).click();
  const versions = dialog.locator("#history > li");
  await page.waitForFunction(() => document.querySelectorAll("#history > li").length === 2);
  check((await versions.nth(0).textContent()).includes("5433") &&
        (await versions.nth(0).textContent()).includes("replaced"), "old version in the history");
  check((await versions.nth(1).textContent()).includes("6432"), "new version current");
  const now = await currentFacts(server);
  const moved = now.find((f) => f.content.includes("6432"));
  check(moved && !now.some((f) => f.content.includes("5433")), "the store's current facts after the edit");
  const history = await api(server, "GET", `/v1/facts/${moved.id}/history?scope=${SCOPE}`);
  check(history.count === 2 && history.facts[0].superseded_by === moved.id, `history ${JSON.stringify(history)}`);
  check(JSON.stringify(moved.tags) === JSON.stringify(["db"]), `tags kept: ${moved.tags}`);
  await shot(page, "04-history");

  // Tag it: the same text with one more tag is merged into the fact.
  await dialog.locator("input[name=tags]").fill("db, infra");
  await dialog.getByRole("button", { name: "Save" }).click();
  await page.waitForFunction(() => document.getElementById("status").textContent.includes("Tags and kind saved"));
  const tagged = await api(server, "GET", `/v1/facts/${moved.id}?scope=${SCOPE}`);
  check(JSON.stringify(tagged.tags) === JSON.stringify(["db", "infra"]), `tags ${tagged.tags}`);
  await dialog.getByRole("button", { name: "Close" }).click();

  // 5-6. Forget Maya's fact: asked first, then gone here and in the store.
  // From the keyboard first: Enter on Forget asks, Escape keeps the fact.
  const maya = now.find((f) => f.content.startsWith("Maya"));
  const mayaForget = page.locator("#facts > li.card", { hasText: "Maya" }).getByRole("button", { name: /^Forget/ });
  const confirm = page.locator("#confirm-dialog");
  await mayaForget.focus();
  await page.keyboard.press("Enter");
  await confirm.waitFor();
  check(await page.evaluate(() => document.activeElement.textContent) === "Cancel", "Cancel has the focus");
  await page.keyboard.press("Escape");
  await confirm.waitFor({ state: "hidden" });
  const kept = await api(server, "GET", `/v1/facts/${maya.id}?scope=${SCOPE}`);
  check(kept.status === 200, `Escape forgot the fact: ${kept.status}`);
  await mayaForget.click();
  await confirm.waitFor();
  await shot(page, "05-confirm");
  await confirm.getByRole("button", { name: "Forget", exact: true }).click();
  await page.waitForFunction(() => !Array.from(document.querySelectorAll("#facts .content"))
    .some((e) => e.textContent.startsWith("Maya")));
  const gone = await api(server, "GET", `/v1/facts/${maya.id}?scope=${SCOPE}`);
  check(gone.status === 404, `forgotten fact still answers ${gone.status}`);
  check((await currentFacts(server)).length === FACTS.length - 1, "one fact fewer in the store");
  await shot(page, "06-forgotten");

  // Forgetting the edited fact offers to bring its old version back.
  await page.locator("#facts > li.card", { hasText: "6432" }).getByRole("button", { name: /^Forget/ }).click();
  await confirm.getByRole("button", { name: /bring back the previous version/ }).click();
  await page.locator("#facts > li.card", { hasText: "5433" }).waitFor();
  const restored = await currentFacts(server);
  check(restored.some((f) => f.id === staging.id) && !restored.some((f) => f.id === moved.id),
        "the previous version is current again in the store");

  // Export: the scope as JSONL, every version, the same as the API's.
  const [download] = await Promise.all([page.waitForEvent("download"), page.click("#export")]);
  const exported = readFileSync(await download.path(), "utf8").trim().split("\n").map((l) => JSON.parse(l));
  const viaApi = (await (await fetch(`${server.url}/v1/export?scope=${SCOPE}`)).text()).trim().split("\n");
  check(exported.length === viaApi.length && exported.every((f) => f.scope === SCOPE),
        `export has ${exported.length} facts, the API ${viaApi.length}`);

  // 8. A phone-sized screen: no sideways scrolling.
  await page.setViewportSize({ width: 390, height: 844 });
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  check(overflow <= 0, `the page is ${overflow}px wider than a phone`);
  await shot(page, "08-phone");

  check(errors.length === 0, `the page logged errors:\n${errors.join("\n")}`);
  await context.close();
}

// A server that wants a token, on an address that is not the default
// loopback: the page asks for the token, keeps it for the tab only, and
// its calls (with its own Origin) are served.
async function browseWithToken(browser, server) {
  const context = await browser.newContext({ viewport: { width: 1100, height: 800 } });
  const page = await context.newPage();
  const errors = [];
  watchForErrors(page, errors);
  await page.goto(`${server.url}/?scope=${SCOPE}`);
  const dialog = page.locator("#token-dialog");
  await dialog.waitFor();
  await shot(page, "07-token");
  await page.fill("#token", "not-the-token");
  await page.keyboard.press("Enter");
  await page.waitForFunction(() => document.getElementById("status").textContent.includes("refused"));
  await page.fill("#token", TOKEN);
  await page.keyboard.press("Enter");
  await page.locator("#facts > li.card").first().waitFor();
  // A write from the page: its Origin is the server's own.
  await page.click("#add-panel summary");
  await page.fill("#add-form textarea[name=content]", "Written from the page with a token");
  await page.click("#add-form button[type=submit]");
  await page.locator("#facts > li.card", { hasText: "Written from the page" }).waitFor();
  const stored = await currentFacts(server, TOKEN);
  check(stored.some((f) => f.content === "Written from the page with a token"), "the write reached the store");
  const kept = await page.evaluate(() => ({ session: sessionStorage.getItem("engram.token"), local: localStorage.length }));
  check(kept.session === TOKEN && kept.local === 0, `token kept as ${JSON.stringify(kept)}`);
  // Another tab's storage does not have it.
  const other = await context.newPage();
  await other.goto(`${server.url}/?scope=${SCOPE}`);
  await other.locator("#token-dialog").waitFor();
  // The refused token's 401 is the one error the console may show.
  const unexpected = errors.filter((e) => !e.includes("401"));
  check(unexpected.length === 0, `the page logged errors:\n${unexpected.join("\n")}`);
  await context.close();
}

let failed = false;
const servers = [];
const homes = [];
let browser;
try {
  rmSync(shots, { recursive: true, force: true });
  mkdirSync(shots, { recursive: true });
  const open = privateHome("engram-browser-", models);
  homes.push(open.home);
  const server = await startServe(engram, [], open.env);
  servers.push(server);
  // One at a time, so each has its own creation time.
  for (const fact of FACTS) {
    const added = await api(server, "POST", "/v1/facts", { scope: SCOPE, ...fact });
    check(added.added === 1, `seeding: ${JSON.stringify(added)}`);
  }

  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
           "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
  await browse(browser, server);
  console.log("browser_test: list, filter, search, explain, edit with history, tag, forget, export, phone: passed");

  const guarded = privateHome("engram-browser-token-", models);
  homes.push(guarded.home);
  guarded.env.ENGRAM_SERVER_TOKEN = TOKEN;
  const tokenServer = await startServe(engram, ["--host", "127.0.0.2"], guarded.env);
  servers.push(tokenServer);
  const seeded = await api(tokenServer, "POST", "/v1/facts", { scope: SCOPE, content: "Seeded behind a token" }, TOKEN);
  check(seeded.added === 1, `seeding behind a token: ${JSON.stringify(seeded)}`);
  await browseWithToken(browser, tokenServer);
  console.log("browser_test: token asked, refused, accepted, kept for the tab, write with the page's origin: passed");
  console.log(`browser_test: screenshots in ${shots}`);
} catch (e) {
  console.error(`browser_test: ${e.stack || e}`);
  failed = true;
} finally {
  if (browser) await browser.close();
  for (const server of servers) await server.stop();
  for (const home of homes) rmSync(home, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
