-- Scores a person gives answers in the web app, one grade per criterion, saved as each is
-- given (so a reload or a lost connection loses none). A person scores a response set with
-- the criteria and scale of one judge template; the newest grade of a criterion wins.
CREATE TABLE hand_scores (
  response_set_id bigint NOT NULL REFERENCES response_sets (id) ON DELETE CASCADE,
  user_id         bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  judge_id        text NOT NULL,
  topic_id        text NOT NULL,
  system          text NOT NULL,
  criterion       text NOT NULL,
  grade           integer NOT NULL,
  updated_at      timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (response_set_id, user_id, judge_id, topic_id, system, criterion)
);
