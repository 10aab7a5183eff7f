// The page's styles, injected once by main.js (the bundle is the only asset).

const CSS = `
html, body { margin: 0; height: 100%; }
body {
  display: flex; flex-direction: column; height: 100vh; overflow: hidden;
  background: #1d2026; color: #d8dce3;
  font: 13px/1.35 system-ui, -apple-system, "Segoe UI", sans-serif;
}
.sv-top { display: flex; align-items: center; gap: 12px; padding: 4px 10px; background: #16181d; }
.sv-title { font-weight: 600; }
.sv-status { color: #9aa3b2; margin-left: auto; }
.sv-status.sv-error { color: #ff8080; }
.sv-resolution { color: #e0b45c; }
.sv-resolution:empty { display: none; }
.sv-view { position: relative; flex: 1 1 auto; min-height: 120px; }
.sv-view canvas { display: block; width: 100%; height: 100%; }
.sv-info, .sv-toggles, .sv-stats {
  position: absolute; top: 8px; padding: 6px 9px; border-radius: 6px;
  background: rgba(22, 24, 29, 0.82); font-size: 12px; pointer-events: auto;
}
.sv-info { left: 8px; min-width: 220px; max-width: 340px; display: none; }
.sv-info.sv-shown { display: block; }
.sv-info h3 { margin: 0 0 4px; font-size: 13px; }
.sv-info table { border-collapse: collapse; }
.sv-info td { padding: 1px 6px 1px 0; vertical-align: top; white-space: nowrap; }
.sv-info td:first-child { color: #9aa3b2; }
.sv-stats { top: auto; bottom: 8px; right: 8px; font-variant-numeric: tabular-nums; }
.sv-stats h3 { margin: 0 0 4px; font-size: 12px; }
.sv-stats table { border-collapse: collapse; }
.sv-stats td { padding: 0 6px 0 0; white-space: nowrap; }
.sv-stats td:first-child { color: #9aa3b2; }
.sv-toggles { right: 8px; display: flex; flex-direction: column; gap: 2px; }
.sv-toggles label { cursor: pointer; user-select: none; }
.sv-toggles input[type=range] { width: 120px; }
.sv-hint {
  position: absolute; bottom: 6px; left: 8px; padding: 2px 6px; border-radius: 4px;
  background: rgba(22, 24, 29, 0.7); color: #aab1bd; font-size: 11px; pointer-events: none;
}
.sv-bar { display: flex; align-items: center; gap: 6px; padding: 5px 10px; background: #16181d; }
.sv-bar button {
  min-width: 32px; height: 26px; border: 1px solid #3a404c; border-radius: 4px;
  background: #262a32; color: #d8dce3; cursor: pointer; font-size: 13px;
}
.sv-bar button:hover { background: #313641; }
.sv-bar select { background: #262a32; color: #d8dce3; border: 1px solid #3a404c; height: 26px; }
.sv-timeline { flex: 1 1 auto; }
.sv-frame { min-width: 250px; font-variant-numeric: tabular-nums; color: #b9c0cc; }
.sv-plots { display: flex; flex-wrap: wrap; gap: 6px; padding: 6px 10px; background: #1a1c22; max-height: 30vh; overflow: auto; }
.sv-plots:empty { display: none; }
.sv-plot { display: block; cursor: crosshair; }
`;

export function injectStyle() {
  const style = document.createElement('style');
  style.textContent = CSS;
  document.head.appendChild(style);
}
