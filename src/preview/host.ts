// What a preview needs from the code host (GitHub), as plain calls: the command never touches
// @actions/github; main.ts hands it an implementation (src/github/preview-host.ts), tests a fake.

export interface PullRequestInfo {
  number: number;
  state: 'open' | 'closed';
  merged: boolean;
  /** When it was last updated (epoch milliseconds). */
  updatedAt: number;
  headSha: string;
}

/** What `pullRequest` throws for a number that is no pull request of the repository (a 404). */
export class NoSuchPullRequest extends Error {
  override name = 'NoSuchPullRequest';
}

export interface PreviewHost {
  /**
   * Reads a pull request; throws when it cannot (never read a failure as "closed" or "open"),
   * NoSuchPullRequest when there is none by that number.
   */
  pullRequest(number: number): Promise<PullRequestInfo>;
  /**
   * The body of the comment holding `marker` that this action's identity wrote, if any (others
   * holding it are ignored, with a warning); throws when it cannot read.
   */
  readComment(number: number, marker: string): Promise<string | undefined>;
  /** Creates or updates our comment holding `marker` (never another's); false when GitHub refused (a warning said why). */
  writeComment(number: number, marker: string, body: string): Promise<boolean>;
  /** A transient GitHub Deployment for a preview; its id, or undefined when refused. */
  createDeployment(environment: string, description: string, payload: object): Promise<number | undefined>;
  deploymentStatus(
    id: number,
    state: 'in_progress' | 'success' | 'failure' | 'error' | 'inactive',
    description: string,
    url?: string,
  ): Promise<void>;
}
