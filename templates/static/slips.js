// The slip's count grid: each denomination's amount and the running total as chips are typed.
// The server counts again on signing; this only helps the person counting.

const grid = document.querySelector(".count-grid");

function chips(text) {
  const digits = text.replace(/,/g, "").trim();
  return /^\d+$/.test(digits) ? BigInt(digits) : 0n;
}

function major(minor) {
  const negative = minor < 0n;
  const abs = negative ? -minor : minor;
  const whole = (abs / 100n).toString().replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  const cents = (abs % 100n).toString().padStart(2, "0");
  return `${negative ? "-" : ""}${whole}.${cents}`;
}

function recount() {
  let total = 0n;
  for (const input of grid.querySelectorAll("input.chips")) {
    const amount = chips(input.value) * BigInt(input.dataset.minor);
    total += amount;
    const cell = grid.querySelector(`.line-amount[data-for="${input.id}"]`);
    if (cell) cell.textContent = amount === 0n ? "" : major(amount);
  }
  grid.querySelector("#count-total").textContent = major(total);
}

if (grid) {
  grid.addEventListener("input", recount);
  recount();
}
