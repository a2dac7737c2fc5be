// One bundle for both steps: the main step saves a state first thing, so when the runner starts
// this file again for `post:`, that state says which step this is (as actions/checkout does).
import { isPostStep, run } from './main.js';
import { run as runPost } from './post.js';

void (isPostStep() ? runPost() : run());
