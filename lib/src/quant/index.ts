export { normalCdf, normalInv } from "./normal.js";
export { moments, sharpe, annualisedSharpe, type Moments } from "./moments.js";
export {
  EULER_GAMMA,
  probabilisticSharpeRatio,
  expectedMaxSharpe,
  deflatedSharpeRatio,
  deflatedSharpeFromTrials,
} from "./deflated-sharpe.js";
export { probabilityOfBacktestOverfitting, type PboResult } from "./pbo.js";
export { seededRandom } from "./random.js";
