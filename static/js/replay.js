// A replay's keyboard: the left and right arrows step back and forward, as the Back and
// Forward links do (their own htmx request, or a page load without htmx). Arrows typed in a
// field, the scrubber included (it steps by itself), are left to the field.
document.addEventListener("keydown", (event) => {
  if (event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) return;
  const id = { ArrowLeft: "replay-back", ArrowRight: "replay-forward" }[event.key];
  if (!id || event.target.closest("input, textarea, select, [contenteditable]")) return;
  const link = document.getElementById(id);
  if (!link) return;
  event.preventDefault();
  link.click();
});

// The current event stays in view in the list of events after each step.
document.addEventListener("htmx:afterSwap", () => {
  const current = document.querySelector(".replay-events .current");
  if (current) current.scrollIntoView({ block: "nearest" });
});
