/// haul's own page (`GET /` with `--listen`; docs/service.md, "A page"): HTML, CSS and
/// JavaScript in one text, so that it needs nothing from the internet and no build step.
///
/// It holds no secret: the token is typed in, or read from the address's `#token=` fragment
/// (then removed from the address bar), kept in `sessionStorage` and sent as
/// `Authorization: Bearer` with every API call. Live updates come from `GET /v1/events`,
/// read with `fetch()` (an `EventSource` cannot send the header) and resumed with
/// `Last-Event-ID` after a cut. Every text from the daemon goes in through `textContent`.
enum PageHTML {
  static let text = #"""
    <!doctype html>
    <html lang="en">
    <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <meta name="referrer" content="no-referrer">
    <link rel="icon" href="data:,">
    <title>haul</title>
    <style>
    :root { --fg: #1b1b1b; --muted: #4a4a4a; --bg: #fafafa; --card: #fff; --line: #c8c8c8;
      --accent: #0b57b0; --ok: #1d6b2a; --bad: #a4161a; --warn: #7a4d00; }
    @media (prefers-color-scheme: dark) {
      :root { --fg: #ececec; --muted: #b8b8b8; --bg: #17191c; --card: #22252a; --line: #4a4f57;
        --accent: #7db4ff; --ok: #7fd18b; --bad: #ff8f8f; --warn: #f0c060; }
    }
    * { box-sizing: border-box; }
    body { margin: 0; font: 15px/1.45 system-ui, sans-serif; color: var(--fg); background: var(--bg); }
    header { display: flex; flex-wrap: wrap; gap: .25rem 1rem; align-items: baseline;
      padding: .6rem 1rem; border-bottom: 1px solid var(--line); background: var(--card); }
    header h1 { margin: 0; font-size: 1.2rem; }
    main { max-width: 60rem; margin: 0 auto; padding: 0 1rem 2rem; }
    h2 { font-size: 1.05rem; margin: 1.2rem 0 .5rem; }
    .muted { color: var(--muted); }
    section.card, li.job { background: var(--card); border: 1px solid var(--line); border-radius: 6px; }
    section.card { padding: .8rem 1rem; margin-top: 1rem; }
    section.card h2 { margin-top: 0; }
    ul#jobs { list-style: none; margin: 0; padding: 0; display: grid; gap: .6rem; }
    li.job { padding: .6rem .8rem; min-width: 0; }
    .top { display: flex; gap: .5rem; align-items: baseline; justify-content: space-between; }
    .name { font-weight: 600; overflow-wrap: anywhere; min-width: 0; }
    .state { font-size: .85rem; padding: 0 .4rem; border-radius: 4px; border: 1px solid currentColor; white-space: nowrap; }
    .s-active { color: var(--accent); } .s-complete { color: var(--ok); }
    .s-error, .s-removed { color: var(--bad); } .s-paused, .s-waiting { color: var(--warn); }
    .bar { height: .6rem; margin: .4rem 0; border-radius: 3px; background: var(--line); overflow: hidden; }
    .bar > div { height: 100%; width: 0; background: var(--accent); }
    [data-state=complete] .bar > div { background: var(--ok); }
    [data-state=error] .bar > div, [data-state=removed] .bar > div { background: var(--bad); }
    [data-state=paused] .bar > div, [data-state=waiting] .bar > div { background: var(--warn); }
    .meta, .where { font-size: .9rem; color: var(--muted); overflow-wrap: anywhere; }
    .actions { display: flex; flex-wrap: wrap; gap: .4rem; margin-top: .5rem; }
    button { font: inherit; padding: .3rem .75rem; border-radius: 4px; border: 1px solid var(--accent);
      background: var(--card); color: var(--accent); cursor: pointer; }
    button.primary { background: var(--accent); color: var(--card); }
    button:disabled { opacity: .45; cursor: default; }
    :focus-visible { outline: 3px solid var(--accent); outline-offset: 2px; }
    label { display: block; margin: .6rem 0 .2rem; font-weight: 600; }
    fieldset { border: 0; padding: 0; margin: 0; display: flex; flex-wrap: wrap; gap: 1rem; }
    fieldset label { display: inline; font-weight: normal; margin: 0; }
    legend { font-weight: 600; padding: 0; margin-bottom: .2rem; }
    input[type=text], input[type=password], textarea { width: 100%; font: inherit; padding: .35rem;
      color: var(--fg); background: var(--bg); border: 1px solid var(--line); border-radius: 4px; }
    input[type=file] { max-width: 100%; font: inherit; }
    textarea { font-family: ui-monospace, monospace; font-size: .85rem; }
    canvas { display: block; width: 100%; height: 120px; }
    .failures { margin-top: .5rem; font-size: .85rem; }
    .failures ol { margin: 0; padding-left: 1.2rem; }
    .failures li { overflow-wrap: anywhere; margin-bottom: .2rem; }
    .code { font-family: ui-monospace, monospace; color: var(--bad); }
    .msg { min-height: 1.4em; margin: .4rem 0 0; }
    .msg.bad { color: var(--bad); }
    [hidden] { display: none !important; }
    </style>
    </head>
    <body>
    <header>
      <h1>haul</h1>
      <span id="conn" class="muted" role="status">not connected</span>
      <span id="total" class="muted"></span>
    </header>
    <main>
    <section id="auth" class="card" hidden>
      <h2>Token</h2>
      <form id="token-form">
        <label for="token">The daemon's token (<code>haul page</code> prints an address with it)</label>
        <input id="token" type="password" autocomplete="off" spellcheck="false">
        <p><button class="primary" type="submit">Connect</button></p>
      </form>
      <p id="auth-msg" class="msg bad" role="alert"></p>
    </section>
    <div id="app" hidden>
      <section class="card" aria-labelledby="rate-h">
        <h2 id="rate-h">Overall rate, last 5 minutes</h2>
        <canvas id="chart" role="img" aria-label="overall rate over the last 5 minutes"></canvas>
        <p id="rate-now" class="muted msg"></p>
      </section>
      <h2>Jobs</h2>
      <p id="empty" class="muted">No jobs yet.</p>
      <ul id="jobs"></ul>
      <section class="card" aria-labelledby="add-h">
        <h2 id="add-h">Add a job</h2>
        <form id="add-form">
          <fieldset>
            <legend>What</legend>
            <label><input type="radio" name="kind" value="urls" checked> URLs, one per line</label>
            <label><input type="radio" name="kind" value="manifest"> A manifest (JSON Lines)</label>
          </fieldset>
          <label for="add-text">URLs or manifest</label>
          <textarea id="add-text" rows="5" spellcheck="false"></textarea>
          <label for="add-file">Or read a manifest file</label>
          <input id="add-file" type="file" accept=".jsonl,.json,.txt,text/plain">
          <label for="add-output">Output directory (inside a root of the daemon; empty: its first)</label>
          <input id="add-output" type="text" spellcheck="false">
          <p><label style="display:inline;font-weight:normal"><input id="add-paused" type="checkbox"> Queue it paused</label></p>
          <button class="primary" type="submit">Add job</button>
          <p id="add-msg" class="msg" role="status"></p>
        </form>
      </section>
    </div>
    </main>
    <script>
    "use strict";
    const $ = (id) => document.getElementById(id);
    const KEY = "haul.token";
    let token = sessionStorage.getItem(KEY);
    const fragment = location.hash.match(/(?:^#|&)token=([^&]*)/);
    if (fragment) {
      token = decodeURIComponent(fragment[1]);
      sessionStorage.setItem(KEY, token);
      history.replaceState(null, "", location.pathname + location.search);
    }
    const jobs = new Map();       // id -> the job, as the API answers it, plus progress samples
    const rows = new Map();       // id -> its <li>
    const samples = [];           // overall rate, one a second, the last 300
    let lastId = null, stream = null;

    function human(bytes) {
      const units = ["B", "KiB", "MiB", "GiB", "TiB"];
      let i = 0;
      while (bytes >= 1024 && i < units.length - 1) { bytes /= 1024; i++; }
      return (i ? bytes.toFixed(1) : String(Math.round(bytes))) + " " + units[i];
    }
    function duration(s) {
      s = Math.round(s);
      const h = Math.floor(s / 3600), m = Math.floor(s / 60) % 60, r = String(s % 60).padStart(2, "0");
      return h ? h + ":" + String(m).padStart(2, "0") + ":" + r : m + ":" + r;
    }

    async function api(method, path, body) {
      const headers = { Authorization: "Bearer " + token };
      if (body !== undefined) headers["Content-Type"] = "application/json";
      const r = await fetch(path, { method, headers, cache: "no-store",
        body: body === undefined ? undefined : JSON.stringify(body) });
      if (r.status === 401) { signOut("The token was refused."); throw new Error("unauthorized"); }
      const data = r.status === 204 ? null : await r.json();
      if (!r.ok) throw new Error(data && data.error ? data.error.code + ": " + data.error.message : "HTTP " + r.status);
      return data;
    }

    function signOut(message) {
      token = null;
      sessionStorage.removeItem(KEY);
      if (stream) stream.abort();
      $("app").hidden = true;
      $("auth").hidden = false;
      $("auth-msg").textContent = message || "";
      $("conn").textContent = "not connected";
      $("token").focus();
    }

    function order() {
      return [...jobs.values()].sort((a, b) => (a.position ?? 1e9) - (b.position ?? 1e9)
        || String(a.created).localeCompare(String(b.created)));
    }

    function button(label, act, aria) {
      const b = document.createElement("button");
      b.type = "button"; b.textContent = label; b.dataset.act = act;
      if (aria) b.setAttribute("aria-label", aria);
      return b;
    }

    function makeRow(id) {
      const li = document.createElement("li");
      li.className = "job"; li.dataset.id = id;
      li.innerHTML = '<div class="top"><span class="name"></span><span class="state"></span></div>'
        + '<div class="bar" role="progressbar" aria-valuemin="0" aria-valuemax="100"><div></div></div>'
        + '<div class="meta"></div><div class="where"></div><div class="actions"></div>'
        + '<div class="failures" hidden></div>';
      const actions = li.querySelector(".actions");
      for (const [label, act, aria] of [["Pause", "pause"], ["Resume", "resume"], ["Cancel", "cancel"],
        ["Up", "up", "Move up"], ["Down", "down", "Move down"], ["Failed entries", "failures"]]) {
        actions.append(button(label, act, aria));
      }
      actions.addEventListener("click", (e) => {
        const b = e.target.closest("button");
        if (b) act(id, b.dataset.act, b);
      });
      rows.set(id, li);
      return li;
    }

    function render() {
      const list = $("jobs"), sorted = order();
      $("empty").hidden = sorted.length > 0;
      let rate = 0;
      sorted.forEach((job, index) => {
        const li = rows.get(job.id) || makeRow(job.id);
        if (list.children[index] !== li) list.insertBefore(li, list.children[index] || null);
        const done = job.done ?? job.succeeded + job.skipped + job.failed;
        const active = job.state === "active";
        if (active) rate += job.rate || 0;
        let part = job.expected_bytes ? job.bytes / job.expected_bytes : job.total ? done / job.total : 0;
        if (job.state === "complete") part = 1;
        const percent = Math.min(100, Math.round(part * 1000) / 10);
        li.dataset.state = job.state;
        li.querySelector(".name").textContent = job.name || job.id;
        const state = li.querySelector(".state");
        state.textContent = job.state; state.className = "state s-" + job.state;
        const bar = li.querySelector(".bar");
        bar.setAttribute("aria-valuenow", String(percent));
        bar.setAttribute("aria-label", (job.name || job.id) + " progress");
        bar.firstChild.style.width = percent + "%";
        const meta = [done + "/" + job.total + " files", human(job.bytes)
          + (job.expected_bytes ? " of " + human(job.expected_bytes) : "")];
        if (job.failed) meta.push(job.failed + " failed");
        if (active) meta.push(human(job.rate || 0) + "/s");
        if (active && job.eta != null) meta.push("ETA " + duration(job.eta));
        li.querySelector(".meta").textContent = meta.join(" · ");
        li.querySelector(".where").textContent = "→ " + job.output + "  (" + job.id + ")";
        const can = { pause: job.state === "waiting" || active, resume: job.state === "paused" || job.state === "error",
          cancel: ["waiting", "active", "paused"].includes(job.state), up: index > 0,
          down: index < sorted.length - 1, failures: job.failed > 0 };
        for (const b of li.querySelectorAll(".actions button")) b.disabled = !can[b.dataset.act];
      });
      for (const [id, li] of rows) if (!jobs.has(id)) { li.remove(); rows.delete(id); }
      $("total").textContent = human(rate) + "/s";
      return rate;
    }

    async function act(id, what, b) {
      try {
        if (what === "failures") return toggleFailures(id, b);
        if (what === "up" || what === "down") {
          const job = jobs.get(id);
          await api("PATCH", "/v1/jobs/" + id, { position: job.position + (what === "up" ? -1 : 1) });
          await loadJobs();
        } else {
          jobs.set(id, await api("POST", "/v1/jobs/" + id + "/" + what));
          render();
        }
        const again = rows.get(id).querySelector('[data-act="' + what + '"]');
        const other = { pause: "resume", resume: "pause" }[what];
        if (again.disabled && other) rows.get(id).querySelector('[data-act="' + other + '"]').focus();
        else again.focus();
      } catch (e) { $("conn").textContent = "error: " + e.message; }
    }

    async function toggleFailures(id, b, refresh) {
      const box = rows.get(id).querySelector(".failures");
      if (!refresh && !box.hidden) { box.hidden = true; b.setAttribute("aria-expanded", "false"); return; }
      const job = await api("GET", "/v1/jobs/" + id);
      const ol = document.createElement("ol");
      for (const f of job.failures || []) {
        const li = document.createElement("li"), code = document.createElement("span");
        code.className = "code";
        code.textContent = f.error ? f.error.code : "failed";
        li.append("line " + f.line + ": " + (f.path || f.url || "") + " ", code,
          f.error && f.error.message ? " " + f.error.message : "");
        ol.append(li);
      }
      box.replaceChildren(ol);
      box.hidden = false;
      if (b) b.setAttribute("aria-expanded", "true");
    }

    async function loadJobs() {
      const list = (await api("GET", "/v1/jobs")).jobs;
      jobs.clear();
      for (const job of list) jobs.set(job.id, job);
      render();
    }

    function handle(type, data) {
      if (type.startsWith("job-")) jobs.set(data.id, data);
      else if (type === "progress" && jobs.has(data.job)) {
        Object.assign(jobs.get(data.job), { done: data.done, failed: data.failed, total: data.total,
          bytes: data.bytes, rate: data.rate, eta: data.eta ?? null });
      } else if (type === "entry-failed" && rows.has(data.job)
        && !rows.get(data.job).querySelector(".failures").hidden) {
        toggleFailures(data.job, null, true).catch(() => {});
      } else if (type === "gap") { loadJobs().catch(() => {}); return; }
      render();
    }

    // Server-Sent Events read by hand: lines of "field: value", an event ends at an empty line.
    async function follow() {
      let wait = 500;
      while (token) {
        const control = new AbortController();
        stream = control;
        try {
          const headers = { Authorization: "Bearer " + token, Accept: "text/event-stream" };
          if (lastId !== null) headers["Last-Event-ID"] = lastId;
          const r = await fetch("/v1/events", { headers, signal: control.signal, cache: "no-store" });
          if (r.status === 401) { signOut("The token was refused."); return; }
          if (!r.ok) throw new Error("HTTP " + r.status);
          $("conn").textContent = "live";
          wait = 500;
          const reader = r.body.getReader(), decoder = new TextDecoder();
          let text = "", event = {};
          for (;;) {
            const { value, done } = await reader.read();
            if (done) break;
            text += decoder.decode(value, { stream: true });
            let end;
            while ((end = text.indexOf("\n")) >= 0) {
              const line = text.slice(0, end).replace(/\r$/, "");
              text = text.slice(end + 1);
              if (line === "") {
                if (event.id !== undefined) lastId = event.id;
                if (event.data !== undefined) handle(event.type || "message", JSON.parse(event.data));
                event = {};
              } else if (!line.startsWith(":")) {
                const colon = line.indexOf(":");
                const field = colon < 0 ? line : line.slice(0, colon);
                const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
                if (field === "data") event.data = event.data === undefined ? value : event.data + "\n" + value;
                else if (field === "event") event.type = value;
                else if (field === "id") event.id = value;
              }
            }
          }
        } catch (e) {
          if (control.signal.aborted) return;
        }
        $("conn").textContent = "reconnecting…";
        await new Promise((done) => setTimeout(done, wait));
        wait = Math.min(wait * 2, 10000);
      }
    }

    async function connect() {
      $("auth").hidden = true;
      $("app").hidden = false;
      $("conn").textContent = "connecting…";
      try {
        lastId = String((await api("GET", "/v1/stats")).last_event_id ?? 0);
        await loadJobs();
        follow();
      } catch (e) { if (token) $("conn").textContent = "error: " + e.message; }
    }

    function draw() {
      const canvas = $("chart"), ratio = window.devicePixelRatio || 1;
      const width = canvas.clientWidth, height = canvas.clientHeight;
      canvas.width = width * ratio; canvas.height = height * ratio;
      const g = canvas.getContext("2d");
      g.scale(ratio, ratio);
      const style = getComputedStyle(document.documentElement);
      const peak = Math.max(1024, ...samples);
      g.strokeStyle = style.getPropertyValue("--line");
      g.strokeRect(0.5, 0.5, width - 1, height - 1);
      g.fillStyle = style.getPropertyValue("--muted");
      g.font = "12px system-ui, sans-serif";
      g.fillText(human(peak) + "/s", 6, 14);
      if (samples.length < 2) return;
      const x = (i) => width - (samples.length - 1 - i) * (width / 299);
      const y = (v) => height - 2 - (v / peak) * (height - 22);
      g.beginPath();
      g.moveTo(x(0), height);
      samples.forEach((v, i) => g.lineTo(x(i), y(v)));
      g.lineTo(x(samples.length - 1), height);
      g.closePath();
      g.globalAlpha = 0.2; g.fillStyle = style.getPropertyValue("--accent"); g.fill();
      g.globalAlpha = 1; g.beginPath();
      samples.forEach((v, i) => (i ? g.lineTo(x(i), y(v)) : g.moveTo(x(i), y(v))));
      g.strokeStyle = style.getPropertyValue("--accent"); g.lineWidth = 2; g.stroke();
    }

    setInterval(() => {
      if (!token) return;
      const rate = render();
      samples.push(rate);
      if (samples.length > 300) samples.shift();
      $("rate-now").textContent = "now " + human(rate) + "/s, peak " + human(Math.max(...samples)) + "/s";
      draw();
    }, 1000);
    window.addEventListener("resize", draw);

    $("token-form").addEventListener("submit", (e) => {
      e.preventDefault();
      token = $("token").value.trim();
      $("token").value = "";
      if (!token) return;
      sessionStorage.setItem(KEY, token);
      connect();
    });

    $("add-file").addEventListener("change", () => {
      const file = $("add-file").files[0];
      if (!file) return;
      const reader = new FileReader();
      reader.onload = () => {
        $("add-text").value = reader.result;
        document.querySelector('input[name=kind][value=manifest]').checked = true;
      };
      reader.readAsText(file);
    });

    $("add-form").addEventListener("submit", async (e) => {
      e.preventDefault();
      const text = $("add-text").value, msg = $("add-msg");
      const body = { paused: $("add-paused").checked };
      if (document.querySelector('input[name=kind]:checked').value === "urls") {
        body.urls = text.split("\n").map((s) => s.trim()).filter((s) => s);
      } else body.manifest = text;
      if ($("add-output").value.trim()) body.output = $("add-output").value.trim();
      msg.className = "msg";
      try {
        const job = await api("POST", "/v1/jobs", body);
        jobs.set(job.id, job);
        render();
        msg.textContent = "Added job " + job.id + ".";
        $("add-text").value = "";
        $("add-file").value = "";
      } catch (err) { msg.className = "msg bad"; msg.textContent = err.message; }
    });

    if (token) connect(); else signOut("");
    </script>
    </body>
    </html>
    """#
}
