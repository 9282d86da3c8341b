// Drag and drop with pointer events (mouse, pen and touch alike): press on a
// pile, move, let go over another pile; the same as picking the two piles one
// after the other. A press that does not move is left to the click.
import type { App } from "./app";

const THRESHOLD = 8; // pixels before a press becomes a drag

export function attachDrag(root: HTMLElement, app: App): void {
  let from: string | null = null;
  let x0 = 0;
  let y0 = 0;
  let dragging = false;
  let ghost: HTMLElement | null = null;
  let suppressUntil = 0;
  window.addEventListener("click", (c) => {
    if (performance.now() < suppressUntil) { c.stopPropagation(); c.preventDefault(); }
  }, { capture: true });

  const pileAt = (x: number, y: number): HTMLElement | null => {
    const el = document.elementFromPoint(x, y);
    return el instanceof Element ? el.closest<HTMLElement>("button.pile[data-pile]") : null;
  };
  const end = () => {
    ghost?.remove();
    ghost = null;
    from = null;
    dragging = false;
    document.body.classList.remove("dragging");
  };

  root.addEventListener("pointerdown", (e) => {
    const pile = (e.target as Element).closest<HTMLElement>("button.pile[data-pile]");
    if (!pile || !app.state.view || e.button !== 0) return;
    from = pile.dataset.pile ?? null;
    x0 = e.clientX;
    y0 = e.clientY;
  });
  window.addEventListener("pointermove", (e) => {
    if (from === null) return;
    if (!dragging && Math.hypot(e.clientX - x0, e.clientY - y0) < THRESHOLD) return;
    if (!dragging) {
      dragging = true;
      document.body.classList.add("dragging");
      if (app.ui.pending !== from) {
        app.ui.pending = null;
        app.pick(from); // lights the legal targets
      }
      const top = root.querySelector(`[data-pile="${from}"] .card.top`);
      ghost = document.createElement("div");
      ghost.className = "drag-ghost";
      ghost.setAttribute("aria-hidden", "true");
      ghost.textContent = top?.textContent ?? "";
      document.body.append(ghost);
    }
    if (ghost) ghost.style.transform = `translate(${e.clientX + 6}px, ${e.clientY + 6}px)`;
  });
  window.addEventListener("pointerup", (e) => {
    if (from === null) return;
    if (dragging) {
      const over = pileAt(e.clientX, e.clientY);
      const target = over?.dataset.pile;
      const source = from;
      end();
      if (target && target !== source) app.pick(target);
      else { app.ui.pending = null; app.draw(); }
      suppressUntil = performance.now() + 100; // the click that follows must not pick again
    } else {
      from = null;
    }
  });
  window.addEventListener("pointercancel", end);
}
