// Table sounds, synthesised with the Web Audio API (no files to load): your turn, a card, a trick won.
// Muted by the "sound" setting; browsers only allow sound after the page has had a click or a key.
import { settings } from "./common.js";

let audio = null;

function context() {
  if (!audio) {
    const Ctx = window.AudioContext || window.webkitAudioContext;
    if (!Ctx) return null;
    audio = new Ctx();
  }
  if (audio.state === "suspended") audio.resume().catch(() => {});
  return audio;
}

function tone(freq, start, length, gain = 0.08, type = "sine") {
  const ctx = context();
  if (!ctx) return;
  const osc = ctx.createOscillator();
  const amp = ctx.createGain();
  osc.type = type;
  osc.frequency.value = freq;
  const at = ctx.currentTime + start;
  amp.gain.setValueAtTime(0, at);
  amp.gain.linearRampToValueAtTime(gain, at + 0.01);
  amp.gain.exponentialRampToValueAtTime(0.0001, at + length);
  osc.connect(amp).connect(ctx.destination);
  osc.start(at);
  osc.stop(at + length + 0.02);
}

const SOUNDS = {
  turn: () => { tone(660, 0, 0.18); tone(880, 0.16, 0.25); },
  card: () => tone(220, 0, 0.06, 0.06, "triangle"),
  trick: () => { tone(523, 0, 0.15); tone(659, 0.1, 0.15); tone(784, 0.2, 0.3); },
};

/** Play a named sound unless muted. The last one played is noted on <body> for the browser tests. */
export function play(name) {
  document.body.dataset.lastSound = name;
  if (!settings().sound) return;
  try { SOUNDS[name](); } catch { /* no audio device: stay quiet */ }
}
