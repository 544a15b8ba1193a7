// An optional sound when the turn comes to this seat, for a player looking elsewhere. Off until
// the person turns it on (a page that beeps unasked is a nuisance); the choice is remembered.
// The tone is made with Web Audio, so no sound file is fetched.
import { t } from "./i18n.js";
import { h } from "./render.js";

const KEY = "teahouse.turn_sound";
let audio = null;

export function soundOnTurn() {
  return globalThis.localStorage?.getItem(KEY) === "on";
}

function setSoundOnTurn(on) {
  if (on) localStorage.setItem(KEY, "on");
  else localStorage.removeItem(KEY);
}

/** Two short rising tones, quiet; nothing when the browser has no Web Audio or forbids it. */
export function playTurnSound() {
  if (!soundOnTurn()) return;
  try {
    audio ??= new AudioContext();
    const at = audio.currentTime;
    for (const [i, freq] of [660, 880].entries()) {
      const osc = audio.createOscillator();
      const gain = audio.createGain();
      osc.frequency.value = freq;
      gain.gain.setValueAtTime(0.08, at + i * 0.16);
      gain.gain.exponentialRampToValueAtTime(0.001, at + i * 0.16 + 0.14);
      osc.connect(gain).connect(audio.destination);
      osc.start(at + i * 0.16);
      osc.stop(at + i * 0.16 + 0.15);
    }
  } catch (err) {
    console.warn("teahouse: no turn sound", err);
  }
}

/** The checkbox that turns the sound on or off; turning it on plays it once, so one hears it. */
export function soundSwitch() {
  return h("label", {}, h("input", { type: "checkbox", id: "turn-sound", checked: soundOnTurn(),
    onchange: (ev) => { setSoundOnTurn(ev.target.checked); playTurnSound(); } }), t("announce.sound"));
}
