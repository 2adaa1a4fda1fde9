// cardgen serve: keep the page in step with the game (server-sent events), show a card's data
// and source lines when it is clicked, zoom a card to full size.  Everything shown from the
// game goes in as text (textContent), never as markup; the cards' HTML comes from the server,
// escaped there.
"use strict";
(function () {
  const main = document.getElementById("cards");
  const status = document.getElementById("status");
  const summary = document.getElementById("summary");
  const panel = document.getElementById("panel");
  const panelBody = document.getElementById("panel-body");
  const zoom = document.getElementById("zoom");
  const zoomImg = document.getElementById("zoom-img");
  let version = Number(document.body.dataset.version || 0);
  let selected = null;        // the key of the card shown in the panel
  let fetching = null;

  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }

  function setStatus(kind, text) {
    status.className = "status " + kind;
    status.textContent = text;
  }

  // The page's own words in the game's language (page.html's #words: English text -> words).
  const words = JSON.parse((document.getElementById("words") || {}).textContent || "{}");
  const t = (text) => words[text] || text;
  const count = (n, kind) => t("{n} " + kind + (n === 1 ? "" : "s")).replace("{n}", n);

  function describe(d) {
    const parts = [];
    if (d.errors) parts.push(count(d.errors, "error"));
    if (d.warnings) parts.push(count(d.warnings, "warning"));
    return t("live") + " · " + (parts.length ? parts.join(", ") : t("no problems"));
  }

  // -- updates ---------------------------------------------------------------------------------
  function faces() {
    const out = new Map();
    for (const tile of main.querySelectorAll(".tile[data-key]")) {
      out.set(tile.dataset.key, Array.from(tile.querySelectorAll("img.side"), (i) => i.getAttribute("src")).join(" "));
    }
    return out;
  }

  async function refresh() {
    if (fetching) return fetching;
    fetching = (async () => {
      try {
        const r = await fetch("/fragment", { cache: "no-store" });
        if (!r.ok) return;
        const html = await r.text();
        const before = faces();
        main.innerHTML = html;
        version = Number(r.headers.get("X-Cardgen-Version") || version);
        document.body.dataset.version = String(version);
        const meta = document.getElementById("meta");
        if (meta && summary) summary.textContent = meta.dataset.summary;
        const after = faces();
        for (const [key, srcs] of after) {
          if (before.has(key) && before.get(key) !== srcs) {
            const tile = main.querySelector('.tile[data-key="' + CSS.escape(key) + '"]');
            if (tile) tile.classList.add("flash");
          }
        }
        if (window.cardgenFilter) { window.cardgenFilter.syncDecks(); window.cardgenFilter.apply(); }
        if (selected) openCard(selected, false);
      } finally {
        fetching = null;
      }
    })();
    return fetching;
  }

  function connect() {
    const events = new EventSource("/events");
    events.addEventListener("update", (e) => {
      const d = JSON.parse(e.data);
      if (d.lang && d.lang !== document.body.dataset.lang) {
        location.reload();          // another language: the whole page, its own words too
        return;
      }
      setStatus(d.stale || !d.ok ? "off" : d.warnings ? "busy" : "on", d.stale ? t("errors: showing the last good cards") : describe(d));
      if (d.version !== version) refresh();
    });
    events.onerror = () => setStatus("off", t("reconnecting…"));
  }

  // -- the card panel --------------------------------------------------------------------------
  async function openCard(key, scroll) {
    selected = key;
    const r = await fetch("/card/" + encodeURIComponent(key) + ".json", { cache: "no-store" });
    if (!r.ok) { closePanel(); return; }
    const d = await r.json();
    if (selected !== key) return;
    panelBody.replaceChildren(cardView(d));
    panel.hidden = false;
    document.body.classList.add("with-panel");
    for (const t of main.querySelectorAll(".tile.selected")) t.classList.remove("selected");
    const tile = main.querySelector('.tile[data-key="' + CSS.escape(key) + '"]');
    if (tile) {
      tile.classList.add("selected");
      if (scroll) tile.scrollIntoView({ block: "nearest", behavior: "smooth" });
    }
  }

  function closePanel() {
    selected = null;
    panel.hidden = true;
    document.body.classList.remove("with-panel");
    for (const t of main.querySelectorAll(".tile.selected")) t.classList.remove("selected");
  }

  function cardView(d) {
    const box = document.createDocumentFragment();
    box.appendChild(el("h2", "", d.name));
    box.appendChild(el("p", "sub", d.deck + " · ×" + d.count + " · " + d.where));
    const pics = el("div", "pics");
    for (const s of d.sides) {
      const img = el("img");
      img.src = s.src;
      img.alt = d.name + " (" + t(s.what) + ")";
      img.title = t("Zoom to full size");
      img.dataset.full = s.full;
      img.dataset.mm = s.width_mm;
      img.addEventListener("click", () => openZoom(s.full, s.width_mm, img.alt));
      pics.appendChild(img);
    }
    box.appendChild(pics);
    if (d.problems.length) {
      box.appendChild(el("h3", "", t("Problems")));
      const ul = el("ul", "problems");
      for (const p of d.problems) {
        const li = el("li", p.severity);
        li.appendChild(el("code", "", p.where));
        li.appendChild(document.createTextNode(" " + p.message));
        ul.appendChild(li);
      }
      box.appendChild(ul);
    }
    box.appendChild(el("h3", "", t("Data")));
    const table = el("table");
    for (const [k, v] of d.fields) {
      const tr = el("tr");
      tr.appendChild(el("td", "", k));
      tr.appendChild(el("td", "", v));
      table.appendChild(tr);
    }
    box.appendChild(table);
    if (d.source.lines.length) {
      box.appendChild(el("h3", "", t("Source")));
      box.appendChild(el("p", "srcfile", d.source.file + ":" + d.source.first));
      const pre = el("pre", "src");
      d.source.lines.forEach((line, i) => {
        const n = d.source.first + i;
        const span = el("span", d.source.marked.includes(n) ? "hit" : "", line || " ");
        span.dataset.n = String(n);
        pre.appendChild(span);
      });
      box.appendChild(pre);
    }
    return box;
  }

  // -- zoom --------------------------------------------------------------------------------------
  function openZoom(src, mm, alt) {
    zoomImg.src = src;
    zoomImg.alt = alt || "";
    zoomImg.dataset.mm = mm || "";
    zoomImg.style.width = "";
    zoom.classList.remove("actual");
    zoom.hidden = false;
  }

  zoom.addEventListener("click", (e) => {
    if (e.target === zoomImg && !zoom.classList.contains("actual") && zoomImg.dataset.mm) {
      zoom.classList.add("actual");                       // the card's own size on the screen
      zoomImg.style.width = zoomImg.dataset.mm + "mm";
      return;
    }
    zoom.hidden = true;
  });

  // -- clicks and keys -----------------------------------------------------------------------------
  main.addEventListener("click", (e) => {
    const tile = e.target.closest(".tile");
    if (!tile) return;
    e.preventDefault();
    if (tile.dataset.key) openCard(tile.dataset.key, false);
    else {
      const img = tile.querySelector("img.side");
      if (img) openZoom(img.dataset.full, img.dataset.mm, img.alt);
    }
  });
  document.getElementById("panel-close").addEventListener("click", closePanel);
  document.addEventListener("keydown", (e) => {
    if (e.target.closest && e.target.closest("input, select, textarea")) return;
    if (e.key === "Escape") {
      if (!zoom.hidden) zoom.hidden = true;
      else closePanel();
    } else if ((e.key === "ArrowRight" || e.key === "ArrowLeft") && selected) {
      const tiles = Array.from(main.querySelectorAll(".tile[data-key]")).filter((t) => !t.hidden);
      const i = tiles.findIndex((t) => t.dataset.key === selected);
      const next = tiles[i + (e.key === "ArrowRight" ? 1 : -1)];
      if (next) { e.preventDefault(); openCard(next.dataset.key, true); }
    }
  });

  // The language list (a game with `languages:`): the server shows the game in the one chosen,
  // and every page of it reloads in that language when told.
  const lang = document.getElementById("lang");
  if (lang) {
    lang.addEventListener("change", () => {
      lang.disabled = true;
      fetch("/lang", { method: "POST", body: lang.value, headers: { "Content-Type": "text/plain" } })
        .then((r) => { if (r.ok) location.reload(); else lang.disabled = false; })
        .catch(() => { lang.disabled = false; });
    });
  }

  connect();
})();
