// kubectl 1.33 against a real kapi (the acceptance list is in test/support/kubectl-acceptance.ts).
import { kubectlAcceptance } from "./support/kubectl-acceptance.js";

kubectlAcceptance(33);
