// Placeholder: the generic board until this game's own board lands.
import { genericBoard } from "./generic.js";

export default genericBoard("gugong");
