// Images a workspace pulled.

import { Model, enc, paginate, settle } from "./common.js";

export class Image extends Model {
  /** Forgets the image. */
  async delete() {
    const { body } = await this.hearth.transport.json("DELETE", `/workspaces/${enc(this.workspace)}/images/${enc(this.id)}`);
    return body?.image ? this._load(body.image) : this;
  }
}

export class Images {
  /** @param {import("./hearth.js").Hearth} hearth @param {import("./workspaces.js").Workspace} workspace */
  constructor(hearth, workspace) {
    this.hearth = hearth;
    this.workspace = workspace;
  }

  /** Pulls an image (following its `image.pull` operation). @param {string} reference @param {{wait?: boolean, timeoutMs?: number, idempotencyKey?: string}} [options] */
  async pull(reference, options = {}) {
    const answer = await this.hearth.transport.json("POST", `${this.workspace.path}/images`, { json: { reference }, idempotencyKey: options.idempotencyKey });
    const image = new Image(this.hearth, answer.body.image)._ops(answer.body);
    if (answer.status === 202 && options.wait !== false) {
      await settle(this.hearth, answer, options);
      for await (const i of this.list()) if (i.id === image.id) return i;
    }
    return image;
  }

  /** Every page. @param {{limit?: number}} [options] */
  list(options = {}) {
    return paginate(this.hearth, `${this.workspace.path}/images`, "images", (raw) => new Image(this.hearth, raw), options);
  }
}
