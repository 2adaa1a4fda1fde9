// The filter box of cardgen's card pages (the gallery works without it; this only hides).
// Matches each card's name, deck and problems; a deck; only cards with problems.
"use strict";
(function () {
  const form = document.getElementById("filters");
  if (!form) return;
  const q = document.getElementById("q");
  const deck = document.getElementById("deck");
  const only = document.getElementById("only-problems");
  const shown = document.getElementById("shown");
  form.hidden = false;
  form.addEventListener("submit", (e) => e.preventDefault());

  function apply() {
    const words = q.value.toLowerCase().split(/\s+/).filter(Boolean);
    let total = 0, visible = 0;
    for (const section of document.querySelectorAll("#cards .deck")) {
      const deckOk = !deck.value || section.dataset.deck === deck.value;
      let any = false;
      for (const tile of section.querySelectorAll(".tile")) {
        const isCard = tile.hasAttribute("data-key");
        if (isCard) total += 1;
        const text = tile.dataset.search || "";
        const ok = deckOk && words.every((w) => text.includes(w))
          && (!only.checked || tile.classList.contains("has-problems"));
        tile.hidden = !ok;
        if (ok && isCard) { visible += 1; any = true; }
      }
      section.hidden = !deckOk || (!any && (words.length > 0 || only.checked));
    }
    const filtering = words.length > 0 || deck.value || only.checked;
    const said = shown.dataset.words || "{visible} of {total} shown";
    shown.textContent = filtering ? said.replace("{visible}", visible).replace("{total}", total) : "";
  }

  // The deck list follows the page (the preview replaces the cards when the game changes).
  function syncDecks() {
    const keep = deck.value;
    const sections = document.querySelectorAll("#cards .deck");
    while (deck.options.length > 1) deck.remove(1);
    for (const section of sections) {
      const option = document.createElement("option");
      option.value = section.dataset.deck;
      const h = section.querySelector("h2");
      option.textContent = h ? h.textContent : section.dataset.deck;
      deck.appendChild(option);
    }
    deck.value = keep;
    if (deck.value !== keep) deck.value = "";
  }

  // Colour vision: the cards (and the zoomed card) through an SVG colour matrix (page.html).
  const vision = document.getElementById("vision");
  function see() {
    if (vision.value) document.body.dataset.vision = vision.value;
    else delete document.body.dataset.vision;
  }
  if (vision) vision.addEventListener("change", see);

  q.addEventListener("input", apply);
  deck.addEventListener("change", apply);
  only.addEventListener("change", apply);
  window.cardgenFilter = { apply: apply, syncDecks: syncDecks };
  apply();
})();
