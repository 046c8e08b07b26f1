// Countdowns ticking in the browser: the permit console's (each pending plugin's time left)
// and a pending pod's next try (the Why pending panel).
//
// The server draws "<n> s left" from the service's last status (each plugin has its own
// timeout); between two redraws (the live socket swaps the console when the queue changes)
// this counts each one down from the moment it was drawn, so two plugins of one pod visibly
// run out at their own pace. A swapped-in console starts again from the server's figures.
(() => {
  // Panels swapped in by htmx bring this script again: one ticker is enough.
  if (window.playgroundCountdown) return;
  window.playgroundCountdown = true;
  const TICK_MS = 250;

  function tick() {
    const now = Date.now();
    for (const span of document.querySelectorAll(".countdown[data-seconds-left]")) {
      if (!span.dataset.until) {
        span.dataset.until = String(now + Number(span.dataset.secondsLeft) * 1000);
      }
      const left = Math.max(0, (Number(span.dataset.until) - now) / 1000);
      span.textContent = `${Math.ceil(left)} s left`;
    }
  }

  tick();
  setInterval(tick, TICK_MS);
})();
