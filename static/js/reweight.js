// The attempt page's Reweight panel, recomputed in the browser as a weight changes.
//
// The arithmetic is kube-scheduler's, as playground/front/reweight.py (its server-side twin,
// which the page without JavaScript uses) does it: per node, the sum over Score plugins of
// normalized score x weight (a weight of 0 counts as 1), plus the extenders' recorded share,
// in BigInt cut to 64 bits so a sum wraps around as Go's int64 does; the highest total wins,
// and among equal totals kube-scheduler picks at random. The words match the server's.
(() => {
  const panel = document.querySelector("[data-reweight]");
  const source = document.getElementById("reweight-data");
  if (!panel || !source) return;
  const data = JSON.parse(source.textContent);
  const [INT32_MIN, INT32_MAX] = data.int32;
  const WHOLE_NUMBER = /^[+-]?[0-9]+$/;
  const AT_RANDOM = "kube-scheduler picks one of them at random";
  const nodes = data.nodes;
  const recordedTotals = byNode(data.totals.map(BigInt));
  const extenders = byNode(data.extenders.map(BigInt));
  const normalized = Object.fromEntries(
    Object.entries(data.normalized).map(([plugin, column]) => [plugin, byNode(column.map(BigInt))]),
  );
  const hasExtenders = Object.values(extenders).some((share) => share !== 0n);
  const rows = [...panel.querySelectorAll("tr[data-plugin]")].map((row) => ({
    plugin: row.dataset.plugin,
    slider: row.querySelector("[data-slider]"),
    number: row.querySelector("[data-weight]"),
    note: row.querySelector("[data-note]"),
  }));

  // A column (one value per node, in data.nodes' order) as node -> value.
  function byNode(column) {
    return Object.fromEntries(nodes.map((node, index) => [node, column[index]]));
  }

  function effectiveWeight(weight) {
    return weight === 0 ? 1n : BigInt(weight);
  }

  function reweightedTotals(weights) {
    const factors = data.plugins.map((plugin) => [
      normalized[plugin],
      effectiveWeight(weights[plugin]),
    ]);
    const totals = {};
    for (const node of nodes) {
      let sum = extenders[node];
      for (const [scores, weight] of factors) sum += scores[node] * weight;
      totals[node] = BigInt.asIntN(64, sum);
    }
    return totals;
  }

  function byName(a, b) {
    return a < b ? -1 : a > b ? 1 : 0;
  }

  // The ranking selectHost would see: best first (ties by name), shared ranks for ties.
  function outcome(weights) {
    const totals = reweightedTotals(weights);
    const order = [...nodes].sort((a, b) =>
      totals[a] === totals[b] ? byName(a, b) : totals[a] > totals[b] ? -1 : 1,
    );
    const counts = new Map();
    for (const node of order) counts.set(totals[node], (counts.get(totals[node]) || 0) + 1);
    let higher = 0;
    const ranked = order.map((node, index) => {
      if (index && totals[node] !== totals[order[index - 1]]) higher = index;
      return {
        node,
        recorded: recordedTotals[node],
        extender: extenders[node],
        total: totals[node],
        rank: higher + 1,
        tied: counts.get(totals[node]) > 1,
        chosen: node === data.chosen,
      };
    });
    const best = ranked.length ? ranked[0].total : 0n;
    const winners = ranked.filter((row) => row.total === best).map((row) => row.node);
    return { rows: ranked, winners, best };
  }

  function listed(names) {
    return names.slice(0, -1).join(", ") + " and " + names[names.length - 1];
  }

  function verdict({ winners, best }) {
    const chosen = data.chosen;
    const changed = !winners.includes(chosen);
    if (!chosen) {
      if (winners.length === 1) return `With these weights ${winners[0]} would win, with ${best}.`;
      return `With these weights ${listed(winners)} tie at ${best}: ${AT_RANDOM}.`;
    }
    if (winners.length === 1) {
      if (!changed) return `With these weights ${chosen} still wins, with ${best}.`;
      return `With these weights ${winners[0]} would win instead of ${chosen}, with ${best}.`;
    }
    if (changed) {
      return `With these weights ${listed(winners)} tie at ${best}, ahead of ${chosen}: ${AT_RANDOM}.`;
    }
    return `With these weights ${listed(winners)} tie at ${best}: ${AT_RANDOM}.`;
  }

  // One field's weight, or why it is refused (reweight.parse_weight's messages).
  function parseWeight(plugin, value) {
    const text = value.trim();
    if (!WHOLE_NUMBER.test(text)) {
      return { problem: `weight.${plugin}: must be a whole number, not "${value}"` };
    }
    const weight = Number(BigInt(text));
    if (weight < INT32_MIN || weight > INT32_MAX || !Number.isSafeInteger(weight)) {
      return {
        problem:
          `weight.${plugin}: ${BigInt(text)} is out of range: a Score plugin's weight is an ` +
          `int32, from ${INT32_MIN} to ${INT32_MAX}`,
      };
    }
    return { weight };
  }

  function readWeights() {
    const weights = { ...data.weights };
    const problems = [];
    for (const row of rows) {
      const { weight, problem } = parseWeight(row.plugin, row.number.value);
      if (problem) problems.push(problem);
      else weights[row.plugin] = weight;
      row.note.textContent = weight === 0 ? "0 counts as 1" : "";
    }
    return { weights, problems };
  }

  function cell(text, className) {
    const td = document.createElement("td");
    td.textContent = text;
    if (className) td.className = className;
    return td;
  }

  function rankingRow(row) {
    const tr = document.createElement("tr");
    tr.className = [row.rank === 1 ? "winner" : "", row.chosen ? "chosen" : ""].join(" ").trim();
    tr.append(cell(row.chosen ? `${row.node} ★` : row.node));
    if (hasExtenders) tr.append(cell(String(row.extender), "num"));
    tr.append(cell(String(row.recorded), "num"));
    const total = cell("", "num");
    const strong = document.createElement("strong");
    strong.textContent = String(row.total);
    total.append(strong);
    tr.append(total, cell(`${row.rank}${row.tied ? "=" : ""}`, "num"));
    return tr;
  }

  function draw() {
    const { weights, problems } = readWeights();
    const result = outcome(weights);
    const shown = result.rows.slice(0, data.rowsShown);
    shown.push(...result.rows.slice(data.rowsShown).filter((row) => row.chosen));
    panel.querySelector("[data-ranking]").replaceChildren(...shown.map(rankingRow));
    const sentence = panel.querySelector("[data-verdict]");
    sentence.textContent = verdict(result);
    sentence.classList.toggle("changed", !result.winners.includes(data.chosen));
    const more = result.rows.length - shown.length;
    panel.querySelector("[data-more]").hidden = more === 0;
    panel.querySelector("[data-more-count]").textContent = String(more);
    panel.querySelector("[data-problems]").replaceChildren(
      ...problems.map((problem) => {
        const li = document.createElement("li");
        li.textContent = problem;
        return li;
      }),
    );
    panel.querySelector("[data-negative]").hidden = !Object.values(weights).some((w) => w < 0);
  }

  // The slider follows the number (its range grows to take the weight), and the reverse.
  function fitSlider(slider, weight) {
    if (weight > Number(slider.max)) slider.max = String(weight);
    if (weight < Number(slider.min)) slider.min = String(weight);
    slider.value = String(weight);
  }

  for (const row of rows) {
    row.slider.addEventListener("input", () => {
      row.number.value = row.slider.value;
      draw();
    });
    row.number.addEventListener("input", () => {
      const { weight } = parseWeight(row.plugin, row.number.value);
      if (weight !== undefined) fitSlider(row.slider, weight);
      draw();
    });
  }

  panel.querySelector("[data-reset]").addEventListener("click", (event) => {
    event.preventDefault();
    for (const row of rows) {
      row.number.value = String(data.weights[row.plugin]);
      fitSlider(row.slider, data.weights[row.plugin]);
    }
    draw();
  });

  // With JavaScript the sliders show and the ranking follows them: no Recompute needed.
  for (const hidden of panel.querySelectorAll("[data-slider-cell], [data-slider-heading]")) {
    hidden.hidden = false;
  }
  panel.querySelector("[data-recompute]").hidden = true;
})();
