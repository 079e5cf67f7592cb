// qctl web: keeps a page up to date from its JSON twin under /api/, polled every interval.
// Every value is set with textContent or setAttribute, never as HTML; charts are drawn with
// createElementNS, with the geometry of src/web/pages/chart.rs. Without this script the
// page shows the reading it was served with.
"use strict";

(function () {
  const SVG = "http://www.w3.org/2000/svg";
  const WIDTH = 300;
  const HEIGHT = 80;
  const PERCENTILES = ["p50", "p95", "p99"];
  const NO_HISTORY = "no history: jobs run by Go consumers or none ran";
  const NOT_READ = "reading the last hour...";
  const DEFAULT_LIMIT = 50;
  // The table's columns after the name, as the server labels each cell (src/web/pages/overview.rs).
  const LABELS = ["active", "due", "later", "in flight", "dead", "consumers", "paused", "done",
    "failed", "done/s", "failed/s"];

  const body = document.body;
  const api = body.dataset.api;
  if (!api) {
    return;
  }
  const interval = Math.max(Number(body.dataset.intervalMs) || 2000, 200);
  const intervalWords = body.dataset.intervalWords || "";

  // Control characters and those that reorder text, written as Rust writes them (\n,
  // \u{202e}), as the server does.
  const HIDDEN = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
  function shown(text) {
    return String(text).replace(HIDDEN, function (c) {
      if (c === "\t") return "\\t";
      if (c === "\n") return "\\n";
      if (c === "\r") return "\\r";
      return "\\u{" + c.codePointAt(0).toString(16) + "}";
    });
  }

  function el(name, attrs, text) {
    const node = document.createElement(name);
    for (const [k, v] of Object.entries(attrs || {})) {
      node.setAttribute(k, v);
    }
    if (text !== undefined) {
      node.textContent = text;
    }
    return node;
  }

  function svgEl(name, attrs) {
    const node = document.createElementNS(SVG, name);
    for (const [k, v] of Object.entries(attrs || {})) {
      node.setAttribute(k, v);
    }
    return node;
  }

  // A span of seconds in its largest unit, as the server words it: 42s, 4m, 3h, 12d.
  function span(secs) {
    const d = Math.round(Math.abs(secs));
    if (d < 60) return d + "s";
    if (d < 3570) return Math.round(d / 60) + "m";
    if (d < 86400 * 2) return Math.round(d / 3600) + "h";
    return Math.round(d / 86400) + "d";
  }

  // A run time as the CLI writes it: 850us, 12ms, 1.5s, 2m05s; - when unknown.
  function millis(ms) {
    if (ms === null || ms === undefined) return "-";
    if (ms < 1) return (ms * 1000).toFixed(0) + "us";
    if (ms < 10) return ms.toFixed(1) + "ms";
    if (ms < 1000) return ms.toFixed(0) + "ms";
    if (ms < 60000) return (ms / 1000).toFixed(1) + "s";
    const s = Math.round(ms / 1000);
    return Math.floor(s / 60) + "m" + String(s % 60).padStart(2, "0") + "s";
  }

  function count(c) {
    return c === null || c === undefined ? "?" : String(c);
  }

  function rate(r, counter) {
    if (r !== null && r !== undefined) return r.toFixed(1);
    return counter === null ? "?" : "-";
  }

  function num(v) {
    const s = v.toFixed(1);
    return s.endsWith(".0") ? s.slice(0, -2) : s;
  }

  function thousands(n) {
    return n.toLocaleString("en-US");
  }

  function plural(n, noun) {
    return thousands(n) + " " + noun + (n === 1 ? "" : "s");
  }

  // A queue's page, its name encoded as the server encodes it.
  function queueHref(name) {
    return "/queues/" + encodeURIComponent(name);
  }

  // --- the reading's status ---

  function status(s, unreachable) {
    const box = document.getElementById("status");
    if (!box) return;
    box.replaceChildren();
    if (unreachable) {
      const banner = el("div", { class: "banner", role: "alert" });
      banner.append(el("strong", {}, "qctl web cannot be reached"), ": " + unreachable);
      box.append(banner);
      return;
    }
    const age = s.age_secs === null ? null : span(s.age_secs);
    if (s.error !== null) {
      const banner = el("div", { class: "banner", role: "alert" });
      banner.append(
        el("strong", {}, "Redis cannot be read"),
        ": ",
        el("span", { class: "error" }, shown(s.error)),
        " ",
        el(
          "span",
          { class: "since" },
          (age === null ? "(no good reading yet; " : "(last good reading " + age + " ago; ") +
            "retrying every " + intervalWords + ")"
        )
      );
      box.append(banner);
    } else {
      box.append(
        el(
          "p",
          { class: "updated" },
          age === null ? "reading Redis..." : "updated " + age + " ago, every " + intervalWords
        )
      );
    }
  }

  // --- the overview ---

  function cells(q) {
    const consumers =
      q.consumers_expired === 0
        ? count(q.consumers_alive)
        : count(q.consumers_alive) + ", " + count(q.consumers_expired) + " expired";
    return [
      count(q.active),
      count(q.scheduled_due),
      count(q.scheduled_later),
      count(q.in_flight),
      count(q.dead),
      consumers,
      q.paused ? "yes" : "no",
      count(q.done),
      count(q.failed),
      rate(q.done_per_sec, q.done),
      rate(q.failed_per_sec, q.failed),
    ];
  }

  function row(q) {
    const tr = el("tr");
    const th = el("th", { scope: "row" });
    th.append(el("a", { href: queueHref(q.queue) }, shown(q.queue)));
    tr.append(th);
    cells(q).forEach(function (c, i) {
      tr.append(el("td", { "data-label": LABELS[i] }, c));
    });
    return tr;
  }

  function minutes(q) {
    return (q.history || []).map(function (m) {
      return {
        done: m.done || 0,
        failed: m.failed || 0,
        p: m.timed_runs ? [m.p50_ms, m.p95_ms, m.p99_ms] : [null, null, null],
      };
    });
  }

  function any(ms) {
    return ms.some(function (m) {
      return m.done > 0 || m.failed > 0 || m.p[0] !== null;
    });
  }

  function chart(kind, label) {
    const svg = svgEl("svg", {
      class: "chart " + kind,
      viewBox: "0 0 " + WIDTH + " " + HEIGHT,
      preserveAspectRatio: "none",
      role: "img",
      "aria-label": label,
    });
    const title = svgEl("title");
    title.textContent = label;
    svg.append(title);
    return svg;
  }

  function counts(ms) {
    const slot = WIDTH / Math.max(ms.length, 1);
    const peak = Math.max(1, ...ms.map((m) => m.done + m.failed));
    const done = ms.reduce((a, m) => a + m.done, 0);
    const failed = ms.reduce((a, m) => a + m.failed, 0);
    const svg = chart(
      "counts",
      "jobs done and failed per minute over the last " + ms.length + " minutes: " +
        done + " done, " + failed + " failed"
    );
    ms.forEach(function (m, i) {
      const x = i * slot;
      const doneH = (m.done / peak) * HEIGHT;
      const failedH = (m.failed / peak) * HEIGHT;
      if (m.done > 0) {
        svg.append(svgEl("rect", { class: "done", x: num(x), y: num(HEIGHT - doneH), width: num(slot * 0.8), height: num(doneH) }));
      }
      if (m.failed > 0) {
        svg.append(svgEl("rect", { class: "failed", x: num(x), y: num(HEIGHT - doneH - failedH), width: num(slot * 0.8), height: num(failedH) }));
      }
    });
    return svg;
  }

  function scale(ms) {
    const values = [];
    for (const m of ms) for (const v of m.p) if (v !== null) values.push(v);
    if (values.length === 0) return [1, 10];
    const low = Math.max(Math.min(...values) / 2, 0.01);
    return [low, Math.max(Math.max(...values) * 1.25, low * 10)];
  }

  function line(points, slot) {
    const parts = [];
    let drawing = false;
    points.forEach(function (y, i) {
      if (y === null) {
        drawing = false;
        return;
      }
      const x = i * slot + slot * 0.4;
      parts.push((drawing ? "L" : "M") + num(x) + " " + num(y) + (drawing ? "" : " h0"));
      drawing = true;
    });
    return parts.join(" ");
  }

  function peakP99(ms) {
    let peak = null;
    for (const m of ms) if (m.p[2] !== null) peak = peak === null ? m.p[2] : Math.max(peak, m.p[2]);
    return peak;
  }

  function runTimes(ms) {
    const slot = WIDTH / Math.max(ms.length, 1);
    const [low, high] = scale(ms);
    const y = function (v) {
      const f = (Math.log(Math.max(v, low)) - Math.log(low)) / (Math.log(high) - Math.log(low));
      return HEIGHT - f * HEIGHT;
    };
    const svg = chart(
      "times",
      "run time p50, p95 and p99 per minute over the last " + ms.length +
        " minutes: p99 at most " + millis(peakP99(ms))
    );
    PERCENTILES.forEach(function (name, p) {
      const d = line(ms.map((m) => (m.p[p] === null ? null : y(m.p[p]))), slot);
      if (d !== "") svg.append(svgEl("path", { class: name, d: d }));
    });
    return svg;
  }

  function key(kind, text) {
    return el("span", { class: "key " + kind }, text);
  }

  function card(q) {
    const ms = minutes(q);
    const section = el("section", { class: "card" });
    const h3 = el("h3");
    h3.append(el("a", { href: queueHref(q.queue) }, shown(q.queue)));
    section.append(h3);
    if (q.history === null) {
      section.append(el("p", { class: "empty" }, NOT_READ));
      return section;
    }
    if (!any(ms)) {
      section.append(el("p", { class: "empty" }, NO_HISTORY));
      return section;
    }
    const peak = Math.max(0, ...ms.map((m) => m.done + m.failed));
    const first = el("figure");
    const c1 = el("figcaption");
    c1.append(key("done", "done"), " and ", key("failed", "failed"), " per minute, ",
      el("span", { class: "peak" }, "at most " + peak + " a minute"));
    first.append(c1, counts(ms));
    const second = el("figure");
    const c2 = el("figcaption");
    c2.append("run time ", key("p50", "p50"), ", ", key("p95", "p95"), ", ", key("p99", "p99"), ", ",
      el("span", { class: "peak" }, "p99 at most " + millis(peakP99(ms))));
    second.append(c2, runTimes(ms));
    const axis = el("p", { class: "axis" });
    axis.append(el("span", {}, ms.length + " minutes ago"), el("span", {}, "now"));
    section.append(first, second, axis);
    return section;
  }

  // What was drawn last: the queues' names in order, and each card's numbers.
  let drawnNames = null;
  let drawnCards = [];

  // The page asked for: offset, limit and q of the API's query, as the server read them.
  const paging = (function () {
    const params = new URL(api, location.href).searchParams;
    return {
      limit: Number(params.get("limit")) || DEFAULT_LIMIT,
      q: params.get("q") || null,
    };
  })();

  function pageQuery(offset) {
    const params = new URLSearchParams();
    params.set("offset", String(offset));
    if (paging.limit !== DEFAULT_LIMIT) params.set("limit", String(paging.limit));
    if (paging.q !== null) params.set("q", paging.q);
    return "/?" + params.toString();
  }

  // The line above the table, in the server's words.
  function summaryText(s, shownCount) {
    const holding = paging.q === null ? "" : ' whose name holds "' + shown(paging.q) + '"';
    if (s.time === null) return "not read yet";
    if (s.total === 0) return paging.q === null ? "no queues found" : "no queue" + holding;
    if (shownCount === 0) return "no queues past " + plural(s.total, "queue") + holding;
    if (s.offset === 0 && s.total <= s.limit) return plural(s.total, "queue") + holding;
    return thousands(s.offset + 1) + " to " + thousands(s.offset + shownCount) + " of " +
      plural(s.total, "queue") + holding;
  }

  // The links to the other pages, as the server draws them; redrawn only when they change
  // (a link that has the focus keeps it).
  function pager(nav, s) {
    const drawn = [s.total, s.offset, s.limit].join(" ");
    if (nav.dataset.drawn === drawn) return;
    nav.dataset.drawn = drawn;
    const pages = Math.max(Math.ceil(s.total / s.limit), 1);
    const here = Math.floor(s.offset / s.limit) + 1;
    const back = s.offset > 0 ? Math.max(s.offset - s.limit, 0) : null;
    const next = s.next_offset;
    const last = Math.floor(Math.max(s.total - 1, 0) / s.limit) * s.limit;
    const link = function (offset, rel, text) {
      if (offset === null) return el("span", { class: "off", "aria-disabled": "true" }, text);
      return el("a", { rel: rel, href: pageQuery(offset) }, text);
    };
    nav.replaceChildren(
      link(back === null ? null : 0, "first", "first"),
      link(back, "prev", "previous"),
      el("span", { class: "where" }, "page " + thousands(here) + " of " + thousands(pages)),
      link(next, "next", "next"),
      link(next === null ? null : last, "last", "last")
    );
    nav.hidden = s.offset === 0 && s.total <= s.limit;
  }

  function overview(data) {
    const queues = data.queues;
    const summary = document.getElementById("summary");
    if (summary) summary.textContent = summaryText(data.status, queues.length);
    for (const nav of document.querySelectorAll("nav.pager")) pager(nav, data.status);
    const warnings = document.getElementById("warnings");
    if (warnings) {
      warnings.replaceChildren();
      for (const w of data.status.warnings) warnings.append(el("li", {}, shown(w)));
      for (const q of queues) {
        if (q.wrong_type.length > 0) {
          warnings.append(el("li", {},
            "queue " + shown(q.queue) + ": WRONGTYPE: " + shown(q.wrong_type.join(", ")) +
              " holds the wrong type of key (counts shown as ?)"));
        }
      }
    }
    const tbody = document.querySelector("#queues tbody");
    const cards = document.getElementById("charts");
    if (!tbody || !cards) return;
    const names = queues.map((q) => q.queue);
    const numbers = queues.map((q) => (q.history === null ? "null" : JSON.stringify(minutes(q))));
    const same =
      drawnNames !== null &&
      names.length === drawnNames.length &&
      names.every((n, i) => n === drawnNames[i]) &&
      tbody.rows.length === names.length &&
      cards.children.length === names.length;
    if (!same) {
      tbody.replaceChildren(...queues.map(row));
      cards.replaceChildren(...queues.map(card));
    } else {
      queues.forEach(function (q, i) {
        const tds = tbody.rows[i].cells;
        cells(q).forEach(function (text, j) {
          if (tds[j + 1].textContent !== text) tds[j + 1].textContent = text;
        });
        if (numbers[i] !== drawnCards[i]) {
          cards.replaceChild(card(q), cards.children[i]);
        }
      });
    }
    drawnNames = names;
    drawnCards = numbers;
  }

  // Asked every interval while the page is seen; a hidden page asks nothing (qctl web then
  // stops reading Redis) and asks at once when it is seen again.
  let timer = null;
  let asking = false;

  async function poll() {
    timer = null;
    if (document.hidden || asking) return;
    asking = true;
    try {
      // From the origin: a page opened with the user and password in its address has a base
      // URL that fetch refuses (it holds credentials); the browser sends the password it
      // was given.
      const response = await fetch(location.origin + api, {
        cache: "no-store",
        credentials: "same-origin",
      });
      if (response.status === 401) {
        status(null, "the password was refused: reload the page");
      } else if (!response.ok) {
        status(null, "it answered " + response.status);
      } else {
        const data = await response.json();
        status(data.status, null);
        if (api.startsWith("/api/overview")) overview(data);
      }
    } catch (e) {
      status(null, String(e && e.message ? e.message : e));
    }
    asking = false;
    if (!document.hidden && timer === null) timer = setTimeout(poll, interval);
  }

  document.addEventListener("visibilitychange", function () {
    if (document.hidden) {
      if (timer !== null) clearTimeout(timer);
      timer = null;
    } else if (timer === null) {
      poll();
    }
  });

  timer = setTimeout(poll, interval);
})();

// Copy buttons (the job page's command lines): each copies its data-command, as it is,
// whatever the page shows escaped. Without this script the buttons stay hidden.
(function () {
  const buttons = document.querySelectorAll("button[data-command]");
  for (const button of buttons) button.hidden = false;

  function say(button, words) {
    const note = button.nextElementSibling;
    if (note && note.classList.contains("copied")) note.textContent = words;
  }

  // Where the clipboard API is not offered (plain HTTP beyond loopback), the command is put
  // in a text field, selected and copied with the browser's own command.
  function fallback(button, text) {
    const field = document.createElement("textarea");
    field.value = text;
    field.setAttribute("readonly", "");
    field.className = "offscreen";
    document.body.append(field);
    field.select();
    let copied = false;
    try {
      copied = document.execCommand("copy");
    } catch (e) {
      copied = false;
    }
    field.remove();
    say(button, copied ? "copied" : "not copied: select the line and copy it");
  }

  document.addEventListener("click", function (event) {
    const button = event.target.closest("button[data-command]");
    if (!button) return;
    const text = button.dataset.command;
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(text).then(
        function () { say(button, "copied"); },
        function () { fallback(button, text); }
      );
    } else {
      fallback(button, text);
    }
  });
})();
