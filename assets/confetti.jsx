/*
 * A small confetti burst for /purchase-success: `count` pieces fall for `durationMs`, then the layer removes
 * itself. Wrapped for Reflex by marketplace/components/confetti.py. Pure CSS animation, no canvas, and it
 * stays still for people who ask for reduced motion.
 */
import React, { useEffect, useMemo, useState } from "react";

const COLORS = ["#6e56cf", "#f76b15", "#30a46c", "#0090ff", "#e54666", "#ffc53d"];
const KEYFRAMES = `
@keyframes mp-confetti-fall {
  0% { transform: translate3d(0, -10vh, 0) rotate(0deg); opacity: 1; }
  85% { opacity: 1; }
  100% { transform: translate3d(var(--mp-drift), 105vh, 0) rotate(var(--mp-spin)); opacity: 0; }
}
@media (prefers-reduced-motion: reduce) {
  [data-confetti-piece] { animation: none !important; display: none; }
}`;

export function Confetti({ count = 50, durationMs = 3000, id = "confetti" }) {
  const [visible, setVisible] = useState(true);

  useEffect(() => {
    const timer = window.setTimeout(() => setVisible(false), durationMs);
    return () => window.clearTimeout(timer);
  }, [durationMs]);

  const pieces = useMemo(
    () =>
      Array.from({ length: count }, (_, i) => ({
        left: Math.random() * 100,
        // Every piece has landed by `durationMs`: delay <= 30% and fall <= 70% of it.
        delay: Math.random() * durationMs * 0.3,
        fall: durationMs * (0.5 + Math.random() * 0.2),
        drift: `${Math.round((Math.random() - 0.5) * 30)}vw`,
        spin: `${Math.round(360 + Math.random() * 720)}deg`,
        width: 6 + Math.round(Math.random() * 6),
        color: COLORS[i % COLORS.length],
        round: i % 3 === 0,
      })),
    [count, durationMs],
  );

  if (!visible) {
    return null;
  }
  return (
    <div
      id={id}
      aria-hidden="true"
      data-pieces={count}
      style={{ position: "fixed", inset: 0, pointerEvents: "none", overflow: "hidden", zIndex: 50 }}
    >
      <style>{KEYFRAMES}</style>
      {pieces.map((piece, i) => (
        <span
          key={i}
          data-confetti-piece=""
          style={{
            position: "absolute",
            top: 0,
            left: `${piece.left}%`,
            width: `${piece.width}px`,
            height: `${piece.round ? piece.width : piece.width * 1.6}px`,
            background: piece.color,
            borderRadius: piece.round ? "50%" : "2px",
            "--mp-drift": piece.drift,
            "--mp-spin": piece.spin,
            animation: `mp-confetti-fall ${piece.fall}ms ease-in ${piece.delay}ms forwards`,
            transform: "translate3d(0, -10vh, 0)",
          }}
        />
      ))}
    </div>
  );
}
