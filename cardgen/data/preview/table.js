// cardgen serve's table: every deck a pile of its cards' copies, to shuffle, deal, draw, flip and
// move between piles, and the exact draw odds of each card and kind.  All of it happens in the
// page: the server only describes the game (/table.json).  Everything from the game goes in as
// text (textContent) or as a picture address the server gave; never as markup.
"use strict";
(function () {
  const $ = (id) => document.getElementById(id);
  const log = $("log");
  let game = null;           // /table.json
  let zones = new Map();     // id -> {id, label, pile: bool, up: default facing, cards: [...] (last = top)}
  let selected = null;       // the uid of the selected card
  let rng = null;            // the seeded generator, or null: crypto
  let uids = 0;

  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }

  // -- randomness: crypto, or a seeded generator (the same seed, the same shuffles) -------------
  function seeded(text) {
    let h = 2166136261 >>> 0;                       // FNV-1a of the seed, then mulberry32
    for (const ch of new TextEncoder().encode(text)) { h ^= ch; h = Math.imul(h, 16777619) >>> 0; }
    return function () {
      h = (h + 0x6D2B79F5) >>> 0;
      let t = h;
      t = Math.imul(t ^ (t >>> 15), t | 1);
      t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
  }
  function below(n) {                               // an integer in [0, n), uniform
    if (rng) return Math.floor(rng() * n);
    const limit = Math.floor(4294967296 / n) * n, buf = new Uint32Array(1);
    do { crypto.getRandomValues(buf); } while (buf[0] >= limit);
    return buf[0] % n;
  }
  function shuffle(list) {                          // Fisher-Yates
    for (let i = list.length - 1; i > 0; i--) {
      const j = below(i + 1);
      [list[i], list[j]] = [list[j], list[i]];
    }
  }

  // -- the table ---------------------------------------------------------------------------------
  function zone(id, label, pile, up) {
    const z = { id: id, label: label, pile: pile, up: up, cards: [] };
    zones.set(id, z);
    return z;
  }
  function players() { return Math.max(1, Math.min(8, Number($("players").value) || 1)); }

  function reset() {
    const seed = $("seed").value.trim();
    rng = seed ? seeded(seed) : null;
    zones = new Map();
    selected = null;
    for (const d of game.decks) {
      const pile = zone("deck:" + d.slug, d.name, true, false);
      for (const c of d.cards) {
        for (let i = 0; i < c.count; i++) {
          pile.cards.push({ uid: ++uids, key: c.key, name: c.name, face: c.face, back: c.back,
            deck: d.slug, up: false });
        }
      }
      pile.cards.reverse();                          // the file's first card on top
      zone("discard:" + d.slug, d.name + " discard", true, true);
    }
    zone("play", "In play", false, true);
    for (let p = 1; p <= players(); p++) zone("hand:" + p, players() > 1 ? "Hand " + p : "Hand", false, true);
    draw();
  }

  function move(card, from, to, up) {
    from.cards.splice(from.cards.indexOf(card), 1);
    card.up = up === undefined ? to.up : up;
    to.cards.push(card);
  }
  function find(uid) {
    for (const z of zones.values()) {
      const c = z.cards.find((x) => x.uid === uid);
      if (c) return [c, z];
    }
    return [null, null];
  }
  function drawCards(slug, n, hands) {             // n cards to each hand in turn, from the top
    const pile = zones.get("deck:" + slug);
    let dealt = 0;
    for (let i = 0; i < n; i++) {
      for (const h of hands) {
        if (!pile.cards.length) return dealt;
        move(pile.cards[pile.cards.length - 1], pile, zones.get(h), true);
        dealt++;
      }
    }
    return dealt;
  }
  function say(text) { log.textContent = text; }

  // -- drawing the table -------------------------------------------------------------------------
  function cardImg(card, cls) {
    const img = el("img", "card " + (cls || "") + (card.up ? " up" : " down") + (card.uid === selected ? " selected" : ""));
    img.src = card.up || !card.back ? card.face : card.back;
    img.alt = card.up ? card.name : "card back";
    img.title = card.up ? card.name : "face down (double-click to flip)";
    img.dataset.uid = String(card.uid);
    img.dataset.side = card.up || !card.back ? "face" : "back";
    img.draggable = true;
    img.addEventListener("click", (e) => { e.stopPropagation(); select(card.uid); });
    img.addEventListener("dblclick", (e) => { e.stopPropagation(); flip(card.uid); });
    img.addEventListener("dragstart", (e) => { e.dataTransfer.setData("text/plain", String(card.uid)); });
    return img;
  }
  function dropTarget(node, z) {
    node.dataset.zone = z.id;
    node.addEventListener("dragover", (e) => e.preventDefault());
    node.addEventListener("drop", (e) => {
      e.preventDefault();
      moveTo(Number(e.dataTransfer.getData("text/plain")), z.id);
    });
    node.addEventListener("click", () => { if (selected !== null) moveTo(selected, z.id); });
  }
  function pileNode(z, extra) {
    const box = el("div", "pile" + (z.cards.length ? "" : " empty"));
    dropTarget(box, z);
    const head = el("div", "pile-head");
    head.appendChild(el("span", "label", z.label));
    head.appendChild(el("span", "count", String(z.cards.length)));
    box.appendChild(head);
    const stack = el("div", "stack");
    if (z.cards.length) {
      const depth = Math.min(4, z.cards.length - 1);
      stack.style.setProperty("--depth", String(depth));
      stack.appendChild(cardImg(z.cards[z.cards.length - 1], "top"));
    } else {
      stack.appendChild(el("div", "slot", "empty"));
    }
    box.appendChild(stack);
    if (extra) box.appendChild(extra);
    return box;
  }
  function button(text, title, act) {
    const b = el("button", "", text);
    b.type = "button";
    b.title = title;
    b.addEventListener("click", (e) => { e.stopPropagation(); act(); });
    return b;
  }
  function deckTools(d) {
    const tools = el("div", "tools");
    const n = el("input");
    n.type = "number"; n.min = "1"; n.max = "99"; n.value = "5"; n.className = "n";
    n.setAttribute("aria-label", "how many");
    n.addEventListener("click", (e) => e.stopPropagation());
    tools.dataset.deck = d.slug;
    tools.appendChild(button("Shuffle", "Shuffle the draw pile", () => {
      shuffle(zones.get("deck:" + d.slug).cards);
      say("Shuffled " + d.name + (rng ? " (seed " + $("seed").value.trim() + ")" : "") + ".");
      draw();
    }));
    tools.appendChild(button("Draw", "Draw this many to the first hand", () => {
      const got = drawCards(d.slug, Number(n.value) || 1, ["hand:1"]);
      say("Drew " + got + " from " + d.name + ".");
      draw();
    }));
    tools.appendChild(n);
    tools.appendChild(button("Deal", "Deal this many to every hand, one at a time", () => {
      const hands = Array.from(zones.keys()).filter((k) => k.startsWith("hand:"));
      const got = drawCards(d.slug, Number(n.value) || 1, hands);
      say("Dealt " + got + " from " + d.name + " to " + hands.length + (hands.length === 1 ? " hand." : " hands."));
      draw();
    }));
    tools.appendChild(button("Gather", "Every card of this deck back into its draw pile, face down", () => {
      const pile = zones.get("deck:" + d.slug);
      for (const z of zones.values()) {
        if (z === pile) continue;
        for (const c of z.cards.filter((x) => x.deck === d.slug)) move(c, z, pile, false);
      }
      for (const c of pile.cards) c.up = false;
      say("Gathered " + d.name + ".");
      draw();
    }));
    return tools;
  }
  function spreadNode(z) {
    const box = el("div", "area-box");
    dropTarget(box, z);
    const head = el("div", "pile-head");
    head.appendChild(el("span", "label", z.label));
    head.appendChild(el("span", "count", String(z.cards.length)));
    box.appendChild(head);
    const row = el("div", "spread");
    for (const c of z.cards) row.appendChild(cardImg(c));
    if (!z.cards.length) row.appendChild(el("div", "hint", "drop cards here"));
    box.appendChild(row);
    return box;
  }
  function draw() {
    const decks = $("decks");
    decks.replaceChildren();
    for (const d of game.decks) {
      const group = el("div", "deck-group");
      group.dataset.deck = d.slug;
      group.appendChild(pileNode(zones.get("deck:" + d.slug), deckTools(d)));
      group.appendChild(pileNode(zones.get("discard:" + d.slug)));
      decks.appendChild(group);
    }
    $("play-area").replaceChildren(spreadNode(zones.get("play")));
    const hands = $("hands");
    hands.replaceChildren();
    for (const z of zones.values()) if (z.id.startsWith("hand:")) hands.appendChild(spreadNode(z));
  }

  function select(uid) {
    selected = selected === uid ? null : uid;
    const [c] = find(uid);
    if (selected !== null && c) say((c.up ? c.name : "A face-down card") + " selected: click a pile or an area to move it there.");
    draw();
  }
  function flip(uid) {
    const [c] = find(uid === undefined ? selected : uid);
    if (!c) return;
    c.up = !c.up;
    say("Flipped " + (c.up ? c.name : "a card") + (c.up ? " face up." : " face down."));
    draw();
  }
  function moveTo(uid, id) {
    const [c, from] = find(uid);
    const to = zones.get(id);
    if (!c || !to || from === to) { selected = null; draw(); return; }
    move(c, from, to, to.pile ? to.up : (to.id.startsWith("hand:") || c.up));
    selected = null;
    say("Moved " + (c.up ? c.name : "a card") + " to " + to.label + ".");
    draw();
  }

  // -- odds: the hypergeometric tail, exactly (BigInt) ------------------------------------------
  function choose(n, k) {
    if (k < 0 || k > n) return 0n;
    k = Math.min(k, n - k);
    let r = 1n;
    for (let i = 1; i <= k; i++) r = r * BigInt(n - k + i) / BigInt(i);   // exact at every step
    return r;
  }
  function gcd(a, b) { while (b) { [a, b] = [b, a % b]; } return a; }
  // P(at least k of the K marked cards among the first n of N), as [numerator, denominator] in lowest terms
  function atLeast(N, K, n, k) {
    n = Math.max(0, Math.min(n, N));
    const den = choose(N, n);
    let num = 0n;
    for (let i = Math.max(k, 0); i <= Math.min(K, n); i++) num += choose(K, i) * choose(N - K, n - i);
    const g = gcd(num, den) || 1n;
    return [num / g, den / g];
  }
  function percent(num, den) {                     // "12.34 %", rounded half up, exactly
    const q = (num * 20000n / den + 1n) / 2n;
    const frac = String(q % 100n).padStart(2, "0");
    return String(q / 100n) + "." + frac + " %";
  }
  function oddsRow(tbody, label, sub, K, N, n, k) {
    const [num, den] = atLeast(N, K, n, k);
    const tr = el("tr");
    const name = el("td", "what", label);
    if (sub) name.appendChild(el("span", "sub", sub));
    tr.appendChild(name);
    tr.appendChild(el("td", "num", K + " of " + N));
    const p = el("td", "num chance", percent(num, den));
    p.dataset.exact = num + "/" + den;
    p.title = "exactly " + num + "/" + den;
    tr.appendChild(p);
    const bar = el("td", "bar");
    const fill = el("span");
    fill.style.width = (Number(num * 1000n / den) / 10) + "%";
    bar.appendChild(fill);
    tr.appendChild(bar);
    tbody.appendChild(tr);
    return tr;
  }
  function odds() {
    const body = $("odds-body");
    body.replaceChildren();
    const n = Math.max(0, Number($("odds-n").value) || 0), k = Math.max(0, Number($("odds-k").value) || 0);
    for (const d of game.decks) {
      const N = d.cards.reduce((s, c) => s + c.count, 0);
      const sec = el("section", "odds-deck");
      sec.dataset.deck = d.slug;
      sec.appendChild(el("h3", "", d.name + " · " + N + " cards" + (n > N ? " (all " + N + " drawn)" : "")));
      const table = el("table");
      const tbody = el("tbody");
      for (const g of d.kinds) {
        oddsRow(tbody, g.value, g.field, g.count, N, n, k).dataset.kind = g.field + "=" + g.value;
      }
      for (const c of d.cards) oddsRow(tbody, c.name, "", c.count, N, n, k).dataset.key = c.key;
      table.appendChild(tbody);
      sec.appendChild(table);
      body.appendChild(sec);
    }
  }

  async function load() {
    const r = await fetch("/table.json", { cache: "no-store" });
    if (!r.ok) { say("The game could not be read (" + r.status + ")."); return; }
    game = await r.json();
    $("title").textContent = game.title + " · table";
    document.title = game.title + " · table";
    reset();
    odds();
    say(game.decks.length ? "Click a deck's buttons to shuffle, draw or deal; click a card, then a pile, to move it."
      : "This game has no cards to put on the table yet.");
    document.body.dataset.ready = "1";
  }

  $("controls").addEventListener("submit", (e) => e.preventDefault());
  $("reset").addEventListener("click", () => { reset(); say("Every card back in its deck."); });
  $("players").addEventListener("change", () => { reset(); say("Dealt out again for " + players() + "."); });
  $("seed").addEventListener("input", () => {      // as typed: a click on Shuffle right after must find its button
    reset();
    say($("seed").value.trim() ? "Seed set: the table starts again, its shuffles repeatable." : "Random shuffles.");
  });
  $("flip-selected").addEventListener("click", () => flip());
  $("odds-n").addEventListener("input", odds);
  $("odds-k").addEventListener("input", odds);
  window.cardgenTable = {
    atLeast: (N, K, n, k) => atLeast(N, K, n, k).join("/"),
    percent: (N, K, n, k) => percent(...atLeast(N, K, n, k)),
    order: (slug) => zones.get("deck:" + slug).cards.map((c) => c.key).reverse(),   // top first
  };
  load();
})();
