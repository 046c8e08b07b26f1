// Keeps a page's websockets connected for as long as the page is open, and says when they
// are not.
//
// htmx's websocket extension reconnects by itself only after some close codes (1006, 1011,
// 1012, 1013), with a random delay that grows to a minute: a page whose server restarted
// could sit for a minute, or for good after a clean close, showing what the dead server last
// sent. Here every close is followed by a reconnection, after a delay that grows from half a
// second to five seconds, and while any socket of the page is closed the top bar shows
// "disconnected, reconnecting…" (#connection-lost). The server sends the whole current state
// to a socket that connects, so the page is up to date again once it reconnects.
(() => {
  const FIRST_DELAY_MS = 500;
  const LONGEST_DELAY_MS = 5000;
  const RECONNECTED_BY_HTMX = [1006, 1011, 1012, 1013];

  // Half the ceiling and a random part of the other half: several pages (or sockets) do not
  // knock on a restarted server at the same moment, and none retries at once in a loop.
  const delay = (retry) => {
    const ceiling = Math.min(LONGEST_DELAY_MS, FIRST_DELAY_MS * 2 ** retry);
    return ceiling / 2 + (Math.random() * ceiling) / 2;
  };
  htmx.config.wsReconnectDelay = delay;

  const closed = new Set(); // elements whose socket is closed
  const retries = new WeakMap(); // element -> reconnections tried since it was last open
  let leaving = false;

  const show = () => {
    for (const element of closed) if (!document.body.contains(element)) closed.delete(element);
    const sign = document.getElementById("connection-lost");
    if (sign) sign.hidden = closed.size === 0;
    document.body.classList.toggle("disconnected", closed.size > 0);
  };

  window.addEventListener("pagehide", () => {
    leaving = true;
  });
  window.addEventListener("pageshow", () => {
    leaving = false;
  });

  document.addEventListener("htmx:wsOpen", (event) => {
    closed.delete(event.target);
    retries.delete(event.target);
    show();
  });

  document.addEventListener("htmx:wsClose", (event) => {
    const element = event.target;
    if (leaving || !document.body.contains(element)) {
      closed.delete(element); // the page or the element went away: closed on purpose
      show();
      return;
    }
    closed.add(element);
    show();
    if (RECONNECTED_BY_HTMX.includes(event.detail.event.code)) return;
    const retry = retries.get(element) || 0;
    retries.set(element, retry + 1);
    const socket = event.detail.socketWrapper;
    setTimeout(() => {
      if (!leaving && closed.has(element) && document.body.contains(element)) socket.reconnect();
    }, delay(retry));
  });
})();
